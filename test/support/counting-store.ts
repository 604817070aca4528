import type { ContextStore } from "../../src/context/context-store.js";

/**
 * `store` with a count of its timeline reads and of the rows they returned (episodes + memories):
 * what a follower's cost is measured in, by the follow-subject tests and scripts/bench-watch.ts.
 */
export function countingReads(store: ContextStore) {
  const counts = { rows: 0, reads: 0 };
  const view = new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property === "getTimeline") {
        const getTimeline: ContextStore["getTimeline"] = async (subjectId, options) => {
          const page = await target.getTimeline(subjectId, options);
          counts.reads += 1;
          counts.rows += page.episodes.length + page.memories.length;
          return page;
        };
        return getTimeline;
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: view, counts };
}
