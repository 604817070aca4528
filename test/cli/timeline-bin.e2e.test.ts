import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { requireBuiltCli } from "../support/built-bin.js";
import { waitForExit } from "../support/run-child.js";
import { useTempDir } from "../support/temp-dir.js";
import { seedRuns } from "./seed-runs.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(repoRoot, "bin", "shared-ctx.js");

/** Runs the BUILT bin to its end with stdout a pipe. */
function shared(args: readonly string[]) {
  return waitForExit(
    spawn(process.execPath, [bin, ...args], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
}

describe("timeline and runs, the built bin through a pipe", () => {
  const tempDir = useTempDir("shared-ctx-timeline-bin-");
  let db = "";

  beforeAll(requireBuiltCli);

  async function seeded(): Promise<string> {
    db = join(tempDir(), "store.db");
    await seedRuns(db);
    // A CRDT update, as the shared-context pipeline writes them: machinery, hidden unless --raw.
    const store = new EmbeddedStore({ path: db });
    try {
      await store.createEpisode({
        subjectId: "sw-4e5f6a7b",
        source: "coder",
        type: "state_update",
        payload: { update: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4v" },
      });
    } finally {
      await store.close();
    }
    return db;
  }

  it("takes a unique prefix and `last`, shows one clock, hides machinery unless --raw", async () => {
    const path = await seeded();
    const byPrefix = await shared(["timeline", "sw-4e5f", "--db", path]);
    expect(byPrefix.stderr).toBe("");
    expect(byPrefix.code).toBe(0);
    expect(byPrefix.stdout).toContain("Run sw-4e5f6a7b");
    expect(byPrefix.stdout).toMatch(/^Time\s+Agent\s+Event type\s+Content$/m);
    expect(byPrefix.stdout).not.toContain("state_update");
    expect(byPrefix.stdout).not.toContain("\u001B[");

    const last = await shared(["timeline", "last", "--db", path, "--json"]);
    expect(last.code).toBe(0);
    expect(JSON.parse(last.stdout).runId).toBe("sw-4e5f6a7b");

    const raw = await shared(["timeline", "4e5f6a7b", "--db", path, "--raw", "--utc"]);
    expect(raw.code).toBe(0);
    expect(raw.stdout).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3}\s+Coder\s+state_update\s+update=\[48 bytes\]/m,
    );
    expect(raw.stdout).toMatch(/^Time \(UTC\)\s+Agent/m);
  });

  it("refuses a wrong --agent or --type, an ambiguous prefix and an unknown id (exit 2)", async () => {
    const path = await seeded();
    const agent = await shared(["timeline", "last", "--db", path, "--agent", "nobody"]);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toContain('has no agent "nobody". Its agents: Planner, Coder, Reviewer');

    const type = await shared(["timeline", "last", "--db", path, "--type", "bogus"]);
    expect(type.code).toBe(2);
    expect(type.stderr).toMatch(/has no "bogus" rows\. Its types: .*module-skip/);

    // Both seeded runs have a hex digit after their mode: "-" alone matches both.
    const unknown = await shared(["timeline", "zz", "--db", path]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Recent runs: sw-4e5f6a7b, nv-0a1b2c3d");
  });

  it("runs lists the task and the outcome, and --json has both", async () => {
    const path = await seeded();
    const table = await shared(["runs", "--db", path]);
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(/Outcome\s+Task$/);
    expect(table.stdout).not.toContain("\u001B[");
    const json = JSON.parse((await shared(["runs", "--db", path, "--json"])).stdout);
    expect(json.runs.map((run: { outcome: string }) => run.outcome)).toEqual([
      "1 conflict avoided",
      "collision",
    ]);
  });
});
