import { describe, expect, it } from "vitest";
import type { ContextStore } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { toRunEventEpisode } from "../../../src/scenario/run-record.js";
import { listRuns } from "../../../src/ui/data/read-run.js";
import { statewaveAvoidedEvents } from "../../support/fixtures/run-events.js";

/** `store` recording the largest page any timeline read asked for. */
function largestPage(store: ContextStore) {
  const largest = { asked: 0 };
  const view = new Proxy(store, {
    get(target, property) {
      if (property === "getTimeline") {
        const read: ContextStore["getTimeline"] = (subjectId, options) => {
          largest.asked = Math.max(largest.asked, options?.limit ?? Number.POSITIVE_INFINITY);
          return target.getTimeline(subjectId, options);
        };
        return read;
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: view, largest };
}

describe("listRuns", () => {
  it("finds the end of a run far past its first page, a page of 100 at a time", async () => {
    const store = new EmbeddedStore({ path: ":memory:" });
    try {
      const events = statewaveAvoidedEvents();
      const runId = events[0]?.runId ?? "";
      const end = events.at(-1);
      expect(end?.type).toBe("run-end");
      for (const event of events.slice(0, -1)) await store.createEpisode(toRunEventEpisode(event));
      for (let start = 0; start < 1200; start += 100) {
        await store.createEpisodesBatch(
          Array.from({ length: 100 }, (_, index) => ({
            subjectId: runId,
            source: "coder",
            type: "implementation_note",
            payload: { content: `note ${start + index}` },
          })),
        );
      }
      if (end) await store.createEpisode(toRunEventEpisode(end));
      const { store: recorded, largest } = largestPage(store);
      const [listing] = await listRuns(recorded);
      expect(listing?.runId).toBe(runId);
      expect(listing?.scenario).toBeDefined();
      expect(listing?.summary).toEqual(end?.type === "run-end" ? end.summary : undefined);
      expect(largest.asked).toBe(100);
    } finally {
      await store.close();
    }
  });
});
