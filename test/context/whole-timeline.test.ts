import { describe, expect, it } from "vitest";
import type { ContextStore, TimelineOptions } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { forEachTimelinePage, readWholeTimeline } from "../../src/context/whole-timeline.js";

/** `store` recording how each timeline read was asked; `cursors: false` hides the store's cursors. */
function recorded(store: ContextStore, cursors: boolean) {
  const asked: TimelineOptions[] = [];
  const view = new Proxy(store, {
    get(target, property) {
      if (property === "getTimeline") {
        const read: ContextStore["getTimeline"] = async (subjectId, options = {}) => {
          const { signal: _signal, ...rest } = options;
          asked.push(rest);
          const page = await target.getTimeline(subjectId, options);
          if (cursors) return page;
          const { nextCursor: _cursor, ...withoutCursor } = page;
          return withoutCursor;
        };
        return read;
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: view, asked };
}

async function seeded(count: number): Promise<EmbeddedStore> {
  const store = new EmbeddedStore({ path: ":memory:" });
  for (let start = 0; start < count; start += 100) {
    await store.createEpisodesBatch(
      Array.from({ length: Math.min(100, count - start) }, (_, index) => ({
        subjectId: "s",
        source: "a",
        type: "implementation_note",
        payload: { content: `note ${start + index}` },
      })),
    );
  }
  await store.compileMemories("s");
  return store;
}

describe("forEachTimelinePage", () => {
  it("pages by cursor where the store hands one out: one offset-free read per page", async () => {
    const store = await seeded(250);
    try {
      const { store: view, asked } = recorded(store, true);
      const sizes: number[] = [];
      await forEachTimelinePage(view, "s", (page) => {
        sizes.push(page.episodes.length);
      });
      expect(sizes).toEqual([100, 100, 50]);
      expect(asked[0]).toEqual({ limit: 100, offset: 0 });
      expect(asked.slice(1).every((options) => typeof options.cursor === "string")).toBe(true);
      expect(asked.slice(1).some((options) => options.offset !== undefined)).toBe(false);
    } finally {
      await store.close();
    }
  });

  it("pages by offset on a store without cursors, and reads the same whole timeline", async () => {
    const store = await seeded(250);
    try {
      const { store: view, asked } = recorded(store, false);
      const whole = await readWholeTimeline(view, "s");
      expect(asked.map((options) => options.offset)).toEqual([0, 100, 200]);
      expect(whole).toEqual(await readWholeTimeline(store, "s"));
      expect(whole.episodes).toHaveLength(250);
    } finally {
      await store.close();
    }
  });
});
