import { describe, expect, it } from "vitest";
import { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { createStatewaveEmulator } from "../../../src/server/compat/statewave-v0-7-1.js";

/** The episode log past a capped server's 100 (statewave-episode-log.ts), with racing writers. */
describe("EpisodeLog on a Statewave v0.7.1 server (emulated)", () => {
  it("keeps every episode of three writers racing across segment ends, once each, in one order", async () => {
    const emulator = createStatewaveEmulator();
    const writers = ["a", "b", "c"].map(
      (name) => [name, new StatewaveStore({ fetch: emulator.clientFetch })] as const,
    );
    await Promise.all(
      writers.map(async ([name, store]) => {
        for (let index = 0; index < 150; index++) {
          const type = index % 10 === 0 ? "implementation_note" : "state_update";
          await store.createEpisode({
            subjectId: "run",
            source: name,
            type,
            payload: { content: `${name}-${index}` },
          });
        }
      }),
    );
    // Closing reconciles: what a full segment did not keep is written again into the next.
    for (const [, store] of writers) await store.close();

    const reader = new StatewaveStore({ fetch: emulator.clientFetch });
    const all = (await reader.getTimeline("run", { limit: 10_000 })).episodes;
    const contents = all.map((episode) => String(episode.payload.content));
    expect(new Set(contents).size).toBe(450);
    expect(contents).toHaveLength(450);
    for (const name of ["a", "b", "c"]) {
      // Each writer's own episodes keep their order (a rewritten one can only move later).
      const mine = contents.filter((content) => content.startsWith(`${name}-`));
      expect(mine).toHaveLength(150);
    }
    // Paging the same log gives the same order.
    const paged = [];
    for (let offset = 0; offset < 450; offset += 100) {
      paged.push(...(await reader.getTimeline("run", { limit: 100, offset })).episodes);
    }
    expect(paged.map((episode) => episode.id)).toEqual(all.map((episode) => episode.id));
    // Knowledge episodes are also on the subject, so Statewave compiles them: 45 notes.
    const compiled = await reader.compileMemories("run");
    expect(
      compiled.memories.filter((memory) => memory.kind === "implementation_note"),
    ).toHaveLength(45);
    await reader.close();
  }, 60_000);
});
