import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { spawnTsChild, waitForExit } from "../../support/run-child.js";
import { useTempDir } from "../../support/temp-dir.js";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const opened: EmbeddedStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

function lines(text: string): string[] {
  return text.split("\n").filter(Boolean);
}

describe("EmbeddedStore across processes", () => {
  const tempDir = useTempDir("store-processes-");
  it("8 processes x 250 createEpisode: all 2,000 appear exactly once, in one total order", async () => {
    const path = join(tempDir(), "store.db");
    // Create the schema first so the children race on writes, not on the migration.
    opened.push(new EmbeddedStore({ path }));
    const writers = Array.from({ length: 8 }, (_, index) => `writer-${index}`);
    const results = await Promise.all(
      writers.map((writer) =>
        waitForExit(spawnTsChild(fixture("write-episodes.ts"), [path, "race", writer, "250"])),
      ),
    );
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
    const printed = results.flatMap((result) => lines(result.stdout));
    expect(printed).toHaveLength(2000);

    const store = new EmbeddedStore({ path });
    opened.push(store);
    const { episodes } = await store.getTimeline("race", { limit: 10_000 });
    expect(episodes).toHaveLength(2000);
    expect(new Set(episodes.map((episode) => episode.id))).toEqual(new Set(printed));
    // Each writer's episodes appear in the order it wrote them.
    for (const writer of writers) {
      const indexes = episodes
        .filter((episode) => episode.source === writer)
        .map((episode) => episode.payload.index);
      expect(indexes).toEqual(Array.from({ length: 250 }, (_, index) => index));
    }
    // The order is total and stable: paging gives the same sequence.
    const pages = [];
    for (let offset = 0; offset < 2000; offset += 300) {
      pages.push(...(await store.getTimeline("race", { limit: 300, offset })).episodes);
    }
    expect(pages.map((episode) => episode.id)).toEqual(episodes.map((episode) => episode.id));
    // created_at follows that order too: each process reads its clock before it gets the write
    // lock, yet the timeline's created_at never goes backwards.
    const times = episodes.map((episode) => episode.createdAt);
    expect(times).toEqual([...times].sort());
  });

  it("never lets created_at go backwards along the timeline, whatever each process's clock says", async () => {
    const path = join(tempDir(), "store.db");
    opened.push(new EmbeddedStore({ path }));
    const ahead = Date.parse("2026-12-01T10:00:30.000Z");
    const behind = Date.parse("2026-12-01T10:00:00.000Z");
    // The first process's clock is 30 s ahead of the second's: the second writes later in seq.
    for (const [writer, clock] of [
      ["ahead", ahead],
      ["behind", behind],
    ] as const) {
      const result = await waitForExit(
        spawnTsChild(fixture("write-episodes.ts"), [
          path,
          "clocks",
          writer,
          "2",
          `--clock-ms=${clock}`,
        ]),
      );
      expect(result, result.stderr).toMatchObject({ code: 0 });
    }
    const store = new EmbeddedStore({ path });
    opened.push(store);
    const { episodes } = await store.getTimeline("clocks", { limit: 10 });
    expect(episodes.map((episode) => [episode.source, episode.createdAt])).toEqual([
      ["ahead", "2026-12-01T10:00:30.000Z"],
      ["ahead", "2026-12-01T10:00:30.000Z"],
      // Never below the subject's last created_at (ties keep the order of seq).
      ["behind", "2026-12-01T10:00:30.000Z"],
      ["behind", "2026-12-01T10:00:30.000Z"],
    ]);
  });

  it("keeps every episode whose create returned when the writer is killed with SIGKILL", async () => {
    const path = join(tempDir(), "store.db");
    opened.push(new EmbeddedStore({ path }));
    const child = spawnTsChild(fixture("write-episodes.ts"), [path, "crash", "victim", "1000000"]);
    const exited = waitForExit(child);
    let printed = "";
    await new Promise<void>((resolve) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        printed += chunk.toString();
        if (lines(printed).length >= 300) resolve();
      });
    });
    child.kill("SIGKILL");
    const result = await exited;
    expect(result.signal).toBe("SIGKILL");
    // Only whole lines: a line cut by the kill is not a returned id.
    const ids = lines(printed.slice(0, printed.lastIndexOf("\n") + 1));
    expect(ids.length).toBeGreaterThanOrEqual(300);

    const store = new EmbeddedStore({ path });
    opened.push(store);
    const stored = new Set<string>();
    for (let offset = 0; ; offset += 10_000) {
      const page = await store.getTimeline("crash", { limit: 10_000, offset });
      for (const episode of page.episodes) stored.add(episode.id);
      if (page.episodes.length < 10_000) break;
    }
    const missing = ids.filter((id) => !stored.has(id));
    expect(missing).toEqual([]);
  });

  it("delivers another process's episodes and memories to a watcher", async () => {
    const path = join(tempDir(), "store.db");
    const store = new EmbeddedStore({ path, pollIntervalMs: 10 });
    opened.push(store);
    const changes: StoreChange[] = [];
    store.watch("watched", (change) => changes.push(change));
    const result = await waitForExit(
      spawnTsChild(fixture("write-episodes.ts"), [path, "watched", "remote", "5", "--compile"]),
    );
    expect(result, result.stderr).toMatchObject({ code: 0 });
    const printed = lines(result.stdout);
    await expect.poll(() => changes.length, { timeout: 5000, interval: 10 }).toBe(10);
    expect(
      changes.slice(0, 5).map((change) => change.type === "episode" && change.episode.id),
    ).toEqual(printed);
    expect(changes.slice(5).every((change) => change.type === "memory")).toBe(true);
  });

  it("never keeps a process alive just because it watches", async () => {
    const path = join(tempDir(), "store.db");
    const result = await waitForExit(spawnTsChild(fixture("idle-watcher.ts"), [path]));
    expect(result, result.stderr).toMatchObject({ code: 0, stdout: "watching\n" });
  });
});
