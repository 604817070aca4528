import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeTimelineCommand } from "../../src/cli/commands/timeline.js";
import { makeWatchCommand } from "../../src/cli/commands/watch.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedState } from "../../src/crdt/shared-state.js";
import { writeDecision } from "../support/fixtures/decision-episode.js";
import { useTempDir } from "../support/temp-dir.js";
import { runCommand } from "./cli-harness.js";

/** Two coding agents sharing one subject, as two `shared-ctx mcp` processes would write it. */
async function twoAgents(path: string): Promise<void> {
  const store = new EmbeddedStore({ path });
  try {
    const decide = (source: string, target: string, content: string) =>
      writeDecision(store, "my-repo", { source, target, content });
    await decide("claude-code", "auth", "Use JWT for the API auth");
    await decide("codex", "auth", "Use opaque session tokens for the API auth");
    await decide("claude-code", "cache", "Keep the cache at 60s");
    await decide("claude-code", "cache", "Cache for 5 minutes");
  } finally {
    await store.close();
  }
}

/** `shared-ctx timeline <args>` on the store at `db`. */
const timelineOn = (db: string, ...args: string[]) =>
  runCommand(makeTimelineCommand, ["timeline", ...args, "--db", db]);

describe("shared-ctx watch", () => {
  const tempDir = useTempDir("shared-ctx-watch-");

  it("shows decisions, what superseded what, and an open dispute with both sides", async () => {
    const db = join(tempDir(), "store.db");
    await twoAgents(db);
    const result = await runCommand(makeWatchCommand, ["watch", "my-repo", "--db", db]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("Subject my-repo · 4 episodes");
    expect(result.stdout).toMatch(/Decisions \(3\)/);
    expect(result.stdout).toContain(
      "Claude-code: Keep the cache at 60s → now Claude-code: Cache for 5 minutes",
    );
    expect(result.stdout).toContain(
      "auth: Claude-code says Use JWT for the API auth vs Codex says Use opaque session tokens for the API auth",
    );
  });

  it("shows claims and open escalations from the merging shared state, and writes nothing", async () => {
    const db = join(tempDir(), "store.db");
    const store = new EmbeddedStore({ path: db });
    try {
      const open = (agentId: string) =>
        SharedState.open({ store, subjectId: "my-repo", agentId, live: false });
      const [one, two] = [await open("coder-1"), await open("coder-2")];
      // Both claim one module before either has seen the other's claim: escalated, not overwritten.
      await one.put("modules", "search-index", "claimed-by:coder-1");
      await two.put("modules", "search-index", "claimed-by:coder-2");
      await two.put("modules", "query-api", "claimed-by:coder-2");
      await one.sync();
      await two.sync();
      await one.close();
      await two.close();
    } finally {
      await store.close();
    }
    const count = async () => {
      const reader = new EmbeddedStore({ path: db });
      try {
        return (await reader.getTimeline("my-repo", { limit: 1000 })).episodes.length;
      } finally {
        await reader.close();
      }
    };
    const before = await count();
    const result = await runCommand(makeWatchCommand, ["watch", "my-repo", "--db", db]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("Coder-2 claimed query-api");
    // Both sides, in the replicas' order (it depends on their peer ids).
    const dispute = result.stdout
      .split("\n")
      .find((line) => line.includes("modules/search-index:"));
    expect(dispute).toContain("Coder-1 says claimed by Coder-1");
    expect(dispute).toContain("Coder-2 says claimed by Coder-2");
    expect(await count()).toBe(before);
  });

  it("prints one JSON document with --json", async () => {
    const db = join(tempDir(), "store.db");
    await twoAgents(db);
    const result = await runCommand(makeWatchCommand, ["watch", "my-repo", "--db", db, "--json"]);
    const view = JSON.parse(result.stdout);
    expect(view.disputes).toHaveLength(1);
    expect(view.superseded[0].supersededBy.content).toBe("Cache for 5 minutes");
  });

  it("timeline --subject prints the same subject's history for scripts", async () => {
    const db = join(tempDir(), "store.db");
    await twoAgents(db);
    const result = await timelineOn(db, "--subject", "my-repo");
    expect(result.exitCode).toBe(0);
    // Not a run: no run clock, so wall-clock UTC.
    expect(result.stdout).toMatch(/^Time \(UTC\)\s+Agent\s+Event type\s+Content$/m);
    expect(result.stdout).toMatch(/Codex\s+architectural_decision\s+Use opaque session tokens/);
    expect(result.stdout).toContain("Open disputes (1)");
  });

  it("refuses a run id together with --subject (exit 2)", async () => {
    const db = join(tempDir(), "store.db");
    await twoAgents(db);
    const result = await timelineOn(db, "last", "--subject", "my-repo");
    expect(result.exitCode).toBe(2);
  });

  describe("a subject of 2,500 decisions", () => {
    /** 2,500 decisions on targets of their own, in batches, compiled once. */
    async function manyDecisions(path: string): Promise<void> {
      const store = new EmbeddedStore({ path });
      try {
        for (let start = 0; start < 2500; start += 100) {
          await store.createEpisodesBatch(
            Array.from({ length: 100 }, (_, index) => ({
              subjectId: "big",
              source: "architect",
              type: "architectural_decision",
              payload: { content: `Decision ${start + index}`, target: `area-${start + index}` },
            })),
          );
        }
        await store.compileMemories("big");
      } finally {
        await store.close();
      }
    }

    it("watch lists the newest 20 decisions and says how many older ones it left out", async () => {
      const db = join(tempDir(), "store.db");
      await manyDecisions(db);
      const result = await runCommand(makeWatchCommand, ["watch", "big", "--once", "--db", db]);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain("Decisions (2500)");
      expect(result.stdout).toContain(
        "  … 2480 older not listed (shared-ctx timeline --subject lists all)",
      );
      expect(result.stdout).toContain("  Architect on area-2499: Decision 2499");
      expect(result.stdout).toContain("  Architect on area-2480: Decision 2480");
      expect(result.stdout).not.toContain("Decision 2479\n");
    });

    it("timeline --subject prints every row, oldest first, a page at a time", async () => {
      const db = join(tempDir(), "store.db");
      await manyDecisions(db);
      const result = await timelineOn(db, "--subject", "big");
      expect(result.exitCode).toBe(0);
      const rows = result.stdout
        .split("\n")
        .filter((line) => /^\d\d:\d\d.* Decision \d+$/.test(line));
      expect(rows).toHaveLength(2500);
      expect(rows[0]).toMatch(/Decision 0$/);
      expect(rows.at(-1)).toMatch(/Decision 2499$/);
    });
  });
});
