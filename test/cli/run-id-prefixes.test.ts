import { describe, expect, it } from "vitest";
import { makeRunsCommand } from "../../src/cli/commands/runs.js";
import { makeWatchCommand } from "../../src/cli/commands/watch.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { toRunEventEpisode } from "../../src/scenario/run-record.js";
import { statewaveAvoidedEvents } from "../support/fixtures/run-events.js";
import { useTempDir } from "../support/temp-dir.js";
import { runCommand } from "./cli-harness.js";
import { seededEnv } from "./seed-runs.js";

/** `last` and unique prefixes wherever a run is taken: `watch` and `runs` as `timeline` does. */
describe("run ids: `last` and prefixes in watch and runs", () => {
  const tempDir = useTempDir("shared-ctx-prefixes-");

  it.each([["last"], ["sw-4e5f"], ["4e5f6"]])("watch %s --json shows that run", async (input) => {
    const env = await seededEnv(tempDir);
    const result = await runCommand(makeWatchCommand, ["watch", input, "--json"], { env });
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).subjectId).toBe("sw-4e5f6a7b");
  });

  it.each([["last"], ["sw-4e5f"], ["4e5f6"], ["nv-0a1b2c3d"]])(
    "runs %s --json lists that run alone",
    async (input) => {
      const env = await seededEnv(tempDir);
      const result = await runCommand(makeRunsCommand, ["runs", input, "--json"], { env });
      expect(result.exitCode).toBe(0);
      const runs = JSON.parse(result.stdout).runs as { runId: string }[];
      expect(runs.map((run) => run.runId)).toEqual([
        input.startsWith("nv") ? "nv-0a1b2c3d" : "sw-4e5f6a7b",
      ]);
    },
  );

  it("runs <unknown> lists the recent runs instead (exit 2)", async () => {
    const env = await seededEnv(tempDir);
    const result = await runCommand(makeRunsCommand, ["runs", "sw-ffff"], { env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('no run "sw-ffff"');
    expect(result.stderr).toContain("Recent runs: sw-4e5f6a7b, nv-0a1b2c3d");
  });

  it("an ambiguous prefix of many runs names five of them and how many more (exit 2)", async () => {
    const env = await seededEnv(tempDir);
    const store = new EmbeddedStore({ path: env.SHARED_CTX_DB });
    try {
      for (let index = 0; index < 30; index += 1) {
        const runId = `sw-4e${index.toString(16).padStart(6, "0")}`;
        await store.createEpisode(toRunEventEpisode(statewaveAvoidedEvents(runId)[0]!));
      }
    } finally {
      await store.close();
    }
    for (const make of [makeWatchCommand, makeRunsCommand]) {
      const name = make === makeWatchCommand ? "watch" : "runs";
      const result = await runCommand(make, [name, "sw-4e"], { env });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(
        /run id "sw-4e" is ambiguous in .*: it starts (sw-4e\w+, ){4}sw-4e\w+ … and 26 more\. Give more of it\.\n$/,
      );
    }
  });
});
