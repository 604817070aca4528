import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { toRunEventEpisode } from "../../src/scenario/run-record.js";
import { requireBuiltCli } from "../support/built-bin.js";
import { statewaveAvoidedEvents } from "../support/fixtures/run-events.js";
import { waitForExit } from "../support/run-child.js";
import { useTempDir } from "../support/temp-dir.js";
import { waitFor } from "../support/wait-for.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(repoRoot, "bin", "shared-ctx.js");

/** Starts the BUILT bin with stdout a pipe (no TTY), as CI would. */
function spawnShared(args: readonly string[], env: Record<string, string> = {}) {
  return spawn(process.execPath, [bin, ...args], {
    cwd: repoRoot,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Runs the BUILT bin to its end. */
async function shared(args: readonly string[], env: Record<string, string>) {
  return waitForExit(spawnShared(args, env));
}

describe("the built bin without a TTY", () => {
  const tempDir = useTempDir("shared-ctx-bin-");

  beforeAll(requireBuiltCli);

  it("demo, runs, timeline and run print plain output and exit 0; a bad run id exits 2", async () => {
    const env = { SHARED_CTX_DB: join(tempDir(), "store.db") };

    // By default the left pane is group-chat (the strongest message passing), on a scenario whose
    // outcome differs: the coordination restarts before a late joiner; group-chat's in-memory room
    // loses its transcript, the store's log nothing. The ending names that, and what it costs.
    const fair = await shared(["demo", "--speed", "50", "--seed", "7"], env);
    expect(fair.code).toBe(0);
    expect(fair.stdout).toContain("· gc-");
    expect(fair.stdout).toContain("coordinator-restart");
    expect(fair.stdout).toContain("Avoided: 1 by history for a late joiner");
    expect(fair.stdout).toMatch(/Outcome\s+collision\s+1 avoided/);
    const ending = fair.stdout.replace(/\s+/g, " ");
    expect(ending).toContain("by history for a late joiner. The coordinator restarted:");
    expect(ending).toContain("group-chat's room lost its transcript and claims (kept in memory)");
    expect(ending).toMatch(/What it costs, under one rule for both: .*group-chat delivered less\./);
    // late-decision, against group-chat, is a tie, and the demo says so.
    const tie = await shared(
      ["demo", "--scenario", "late-decision", "--speed", "50", "--seed", "7"],
      env,
    );
    expect(tie.stdout).toContain("A tie: both sides wasted the same work");
    // Plain broadcast lacks the interrupt, and the verdicts name it.
    const plain = await shared(
      ["demo", "--baseline", "broadcast", "--speed", "50", "--seed", "7"],
      env,
    );
    expect(plain.stdout).toContain("· bc-");
    expect(plain.stdout).toContain("lacked mid-build invalidation");

    // --baseline naive: the classic comparison.
    const demo = await shared(["demo", "--baseline", "naive", "--speed", "50", "--seed", "7"], env);
    expect(demo.stderr).toBe("");
    expect(demo.code).toBe(0);
    expect(demo.stdout).not.toContain("\u001B[");
    const naiveAt = demo.stdout.indexOf("== Messages only · nv-");
    const statewaveAt = demo.stdout.indexOf("== Shared context · sw-");
    const comparisonAt = demo.stdout.indexOf("== Comparison ==");
    expect(naiveAt).toBeGreaterThanOrEqual(0);
    expect(statewaveAt).toBeGreaterThan(naiveAt);
    expect(comparisonAt).toBeGreaterThan(statewaveAt);
    expect(demo.stdout).toContain("[Planner] DEPRECATING → legacy-session-token");
    expect(demo.stdout).toContain(
      "COLLISION DETECTED — work built in vain; the wasted compute cannot be recovered",
    );
    expect(demo.stdout).toContain(
      "CONFLICT AVOIDED — the Coder read the Planner's decision before acting",
    );
    expect(demo.stdout).toMatch(/Modules built in vain\s+1 \(legacy-session-token\)\s+0/);
    const runId = /shared-ctx timeline (sw-[0-9a-z]{8})/.exec(demo.stdout)?.[1];
    expect(runId).toBeDefined();

    const runs = await shared(["runs"], env);
    expect(runs.code).toBe(0);
    expect(runs.stdout).toMatch(
      new RegExp(`${runId}\\s+statewave\\s+auth-jwt\\s+\\S+ \\S+\\s+\\d+ conflicts? avoided`),
    );
    expect(runs.stdout).toMatch(/nv-[0-9a-z]{8}\s+naive\s+auth-jwt\s+\S+ \S+\s+collision/);

    const timeline = await shared(["timeline", runId ?? ""], env);
    expect(timeline.code).toBe(0);
    // One clock: the run's own, since its start.
    expect(timeline.stdout).toMatch(/^Time\s+Agent\s+Event type\s+Content$/m);
    expect(timeline.stdout).toMatch(/Coder\s+module-skip\s+Skipping → legacy-session-token/);
    expect(timeline.stdout).toMatch(/Final memory state: [1-9]\d* active/);
    expect(timeline.stdout).toContain("Who read what");

    const bad = await shared(["timeline", "sw-zzzzzzzz"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no run "sw-zzzzzzzz"');
    expect(bad.stderr).toContain(runId);

    const run = await shared(["run", "--mode", "naive", "--speed", "50", "--seed", "7"], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/== Messages only · nv-[0-9a-z]{8}/);
    expect(run.stdout).toContain("[Planner] DEPRECATING → legacy-session-token");
  });

  it("timeline --follow stays alive while another process writes the run, and exits 0 at run-end", async () => {
    const db = join(tempDir(), "store.db");
    const [start, next, ...rest] = statewaveAvoidedEvents();
    if (!start || !next) throw new Error("the fixture run has fewer than two events");
    const writer = new EmbeddedStore({ path: db });
    try {
      await writer.createEpisode(toRunEventEpisode(start));
      const child = spawnShared(["timeline", start.runId, "--follow", "--db", db]);
      let seen = "";
      child.stdout.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
      });
      const exited = waitForExit(child);
      await waitFor(() => expect(seen).toMatch(/Run\s+run-start/), { timeoutMs: 20_000 });
      // The follower has printed everything there was and is now idle: only its own ref'd timer
      // keeps it alive (the store's watch timers are unref()'d), so it must still see this row.
      await writer.createEpisode(toRunEventEpisode(next));
      const early = await Promise.race([
        waitFor(() => expect(seen).toMatch(/Planner\s+agent-start/), { timeoutMs: 20_000 }).then(
          () => undefined,
        ),
        exited,
      ]);
      expect(early, "the follower exited before the run ended").toBeUndefined();
      expect(seen).not.toContain("module-skip");
      for (const event of rest) await writer.createEpisode(toRunEventEpisode(event));
      const result = await exited;
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Coder\s+module-skip\s+Skipping → legacy-session-token/);
      expect(result.stdout).toMatch(/Run\s+run-end/);
      expect(result.stdout).toContain("Who read what");
      expect(result.stdout.match(/run-start/g)).toHaveLength(1);
    } finally {
      await writer.close();
    }
  });
});
