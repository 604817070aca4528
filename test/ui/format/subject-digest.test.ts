import { describe, expect, it } from "vitest";
import type { ContextStore, CreateEpisodeInput } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { forEachTimelinePage, readWholeTimeline } from "../../../src/context/whole-timeline.js";
import { SubjectDigest } from "../../../src/ui/format/subject-digest.js";
import {
  buildSubjectView,
  formatSubjectView,
  shownDecisions,
  viewOfDigest,
} from "../../../src/ui/format/subject-view.js";

const size = 3000;

/** `size` decisions, each on its own target, plus a note between every ten. */
async function seeded(): Promise<EmbeddedStore> {
  const store = new EmbeddedStore({ path: ":memory:" });
  const episodes: CreateEpisodeInput[] = [];
  for (let index = 0; index < size; index += 1) {
    episodes.push({
      subjectId: "big",
      source: `agent-${index % 3}`,
      type: "architectural_decision",
      payload: { content: `Decision ${index}`, target: `area-${index}` },
    });
    if (index % 10 === 0) {
      episodes.push({
        subjectId: "big",
        source: "coder",
        type: "message",
        payload: { text: "hi" },
      });
    }
  }
  for (let start = 0; start < episodes.length; start += 100) {
    await store.createEpisodesBatch(episodes.slice(start, start + 100));
  }
  await store.compileMemories("big");
  return store;
}

/** `store` recording the largest page any timeline read asked for and got. */
function pageRecorder(store: ContextStore) {
  const largest = { asked: 0, rows: 0 };
  const view = new Proxy(store, {
    get(target, property) {
      if (property === "getTimeline") {
        const read: ContextStore["getTimeline"] = async (subjectId, options) => {
          largest.asked = Math.max(largest.asked, options?.limit ?? Number.POSITIVE_INFINITY);
          const page = await target.getTimeline(subjectId, options);
          largest.rows = Math.max(largest.rows, page.episodes.length, page.memories.length);
          return page;
        };
        return read;
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: view, largest };
}

describe("SubjectDigest folded page by page", () => {
  it("holds at most one page of the subject and shows what the whole read shows", async () => {
    const store = await seeded();
    try {
      const { store: recorded, largest } = pageRecorder(store);
      const digest = new SubjectDigest("big");
      await forEachTimelinePage(recorded, "big", (page) => {
        for (const episode of page.episodes) digest.addEpisode(episode);
        for (const memory of page.memories) digest.addMemory(memory);
      });
      // The memory bound: no read asked for, or got, more than one page of 100.
      expect(largest).toEqual({ asked: 100, rows: 100 });
      const view = viewOfDigest(digest);
      expect(view).toEqual(buildSubjectView(await readWholeTimeline(store, "big")));
      expect(view.episodes).toBe(size + size / 10);
      expect(view.decisions).toHaveLength(shownDecisions);
      expect(view.decisions.at(-1)?.content).toBe(`Decision ${size - 1}`);
      expect(view.olderDecisions).toBe(size - shownDecisions);
      const lines = formatSubjectView(view);
      expect(lines).toContain(`Decisions (${size})`);
      expect(lines).toContain(
        `  … ${size - shownDecisions} older not listed (shared-ctx timeline --subject lists all)`,
      );
      expect(lines).not.toContain("  Agent-0 on area-0: Decision 0");
    } finally {
      await store.close();
    }
  });

  it("replaces a decision by id when the feed says it changed, and skips an episode seen", () => {
    const digest = new SubjectDigest("s", { dedupe: true });
    const decision = {
      id: "m1",
      subjectId: "s",
      kind: "architectural_decision",
      content: "Use JWT",
      summary: "Use JWT",
      confidence: 0.9,
      validFrom: "2026-01-01T00:00:00.000Z",
      validTo: null,
      sourceEpisodeIds: [],
      metadata: { target: "auth", source: "a" },
      status: "active" as const,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    };
    const episode = {
      id: "e1",
      subjectId: "s",
      source: "a",
      type: "message",
      payload: {},
      metadata: {},
      provenance: {},
      sessionId: null,
      createdAt: "2026-01-01T00:00:00.000Z",
    };
    digest.apply({ type: "memory", memory: decision });
    digest.apply({ type: "episode", episode });
    digest.apply({ type: "episode", episode });
    digest.apply({ type: "memory", memory: { ...decision, status: "superseded" } });
    const view = viewOfDigest(digest);
    expect(view.episodes).toBe(1);
    expect(view.decisions).toEqual([]);
    expect(view.superseded.map((entry) => entry.content)).toEqual(["Use JWT"]);
  });
});
