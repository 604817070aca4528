import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeTimelineCommand } from "../../src/cli/commands/timeline.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { toRunEventEpisode } from "../../src/scenario/run-record.js";
import { statewaveAvoidedEvents } from "../support/fixtures/run-events.js";
import { useTempDir } from "../support/temp-dir.js";
import { waitFor } from "../support/wait-for.js";
import { runCommand } from "./cli-harness.js";
import { seededEnv } from "./seed-runs.js";

const seeded = seededEnv;

describe("shared-ctx timeline", () => {
  const tempDir = useTempDir("shared-ctx-timeline-");

  /** `shared-ctx timeline <args>` on a store seeded with the two fixture runs. */
  const timelineOfSeeded = async (...args: string[]) =>
    runCommand(makeTimelineCommand, ["timeline", ...args], { env: await seeded(tempDir) });

  /** `shared-ctx timeline <runId>` on the store at `db`. */
  const timelineOn = (db: string, runId: string) =>
    runCommand(makeTimelineCommand, ["timeline", runId, "--db", db]);

  it("prints the table, the memory state and who read what", async () => {
    const result = await timelineOfSeeded("sw-4e5f6a7b");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("Run sw-4e5f6a7b · mode statewave · scenario auth-jwt");
    // One clock: the run's own, since its start.
    expect(result.stdout).toMatch(/^Time\s+Agent\s+Event type\s+Content$/m);
    expect(result.stdout).toMatch(
      /^T\+2\.5s\s+Coder\s+module-skip\s+Skipping → legacy-session-token/m,
    );
    // The decision episode the pipeline wrote, next to the run events.
    expect(result.stdout).toMatch(
      /Planner\s+architectural_decision\s+Deprecate legacy-session-token: replaced by JWT/,
    );
    expect(result.stdout).toMatch(/Final memory state: 1 active, 0 superseded/);
    expect(result.stdout).toMatch(/active\s+\[architectural_decision, confidence 0\.90\]/);
    expect(result.stdout).toContain('Coder read 1 memory for "Implement the auth modules"');
  });

  it("filters by agent and type", async () => {
    const result = await timelineOfSeeded(
      "sw-4e5f6a7b",
      "--agent",
      "coder",
      "--type",
      "module-skip",
    );
    const rows = result.stdout.split("\n").filter((line) => /^T[+-]\d/.test(line));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain("module-skip");
  });

  it("shows wall-clock UTC with --utc", async () => {
    const result = await timelineOfSeeded("sw-4e5f6a7b", "--utc", "--type", "module-skip");
    expect(result.stdout).toMatch(/^Time \(UTC\)\s+Agent/m);
    expect(result.stdout).toMatch(/^12:00:00\.250\s+Coder\s+module-skip/m);
  });

  it.each([
    ["--agent", "nobody", 'has no agent "nobody". Its agents: Planner, Coder, Reviewer'],
    ["--type", "bogus", 'has no "bogus" rows. Its types: '],
  ])("refuses %s %s, listing what the run has (exit 2)", async (flag, value, message) => {
    const result = await timelineOfSeeded("sw-4e5f6a7b", flag, value);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it.each([["sw-4e5f"], ["4e5f6"], ["last"]])("takes %s for the run it names", async (input) => {
    const result = await timelineOfSeeded(input, "--json");
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).runId).toBe("sw-4e5f6a7b");
  });

  it("prints one JSON document with --json", async () => {
    const result = await timelineOfSeeded("nv-0a1b2c3d", "--json");
    const document = JSON.parse(result.stdout);
    expect(document).toMatchObject({
      runId: "nv-0a1b2c3d",
      mode: "naive",
      summary: { collision: true },
    });
    expect(document.rows.map((row: { type: string }) => row.type)).toContain("collision");
  });

  it("refuses an unknown run id, listing the recent ones (exit 2)", async () => {
    const result = await timelineOfSeeded("sw-ffffffff");
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('no run "sw-ffffffff"');
    expect(result.stderr).toContain("Recent runs: sw-4e5f6a7b, nv-0a1b2c3d");
  });

  it("refuses an ambiguous prefix, listing what it matches (exit 2)", async () => {
    const env = await seeded(tempDir);
    const store = new EmbeddedStore({ path: env.SHARED_CTX_DB });
    try {
      for (const event of statewaveAvoidedEvents("sw-4e5f0000"))
        await store.createEpisode(toRunEventEpisode(event));
    } finally {
      await store.close();
    }
    const result = await runCommand(makeTimelineCommand, ["timeline", "sw-4e5f"], { env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      'run id "sw-4e5f" is ambiguous in ' +
        env.SHARED_CTX_DB +
        ": it starts sw-4e5f0000, sw-4e5f6a7b",
    );
  });

  it("explains what a run id looks like when it is mistyped", async () => {
    const result = await timelineOfSeeded("zz-nothing");
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("run ids look like sw-1a2b3c4d; a unique prefix or `last`");
  });

  it("names a store that cannot be opened", async () => {
    const missing = join(tempDir(), "nowhere", "store.db");
    const result = await timelineOn(missing, "sw-4e5f6a7b");
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`cannot open the store at ${missing}`);
    const directory = tempDir();
    const notAFile = await timelineOn(directory, "sw-4e5f6a7b");
    expect(notAFile.exitCode).toBe(1);
    expect(notAFile.stderr).toContain(`cannot open the store at ${directory}`);
  });

  it("--follow prints rows as another connection writes them, until run-end", async () => {
    const db = join(tempDir(), "store.db");
    const writer = new EmbeddedStore({ path: db, pollIntervalMs: 5 });
    const events = statewaveAvoidedEvents();
    try {
      await writer.createEpisode(toRunEventEpisode(events[0]!));
      let seen = "";
      const following = runCommand(makeTimelineCommand, ["timeline", "sw-4e5f6a7b", "--follow"], {
        env: { SHARED_CTX_DB: db },
        onStdout: (text) => {
          seen = text;
        },
      });
      await waitFor(() => expect(seen).toContain("run-start"));
      expect(seen).not.toContain("module-skip");
      for (const event of events.slice(1)) await writer.createEpisode(toRunEventEpisode(event));
      const result = await following;
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(/Coder\s+module-skip/);
      expect(result.stdout).toContain("Who read what");
      expect(result.stdout.match(/run-start/g)).toHaveLength(1);
    } finally {
      await writer.close();
    }
  });
});
