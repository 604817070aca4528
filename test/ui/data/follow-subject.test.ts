import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { SharedState } from "../../../src/crdt/shared-state.js";
import { followSubject } from "../../../src/ui/data/follow-subject.js";
import type { SubjectView } from "../../../src/ui/format/subject-view.js";
import { countingReads } from "../../support/counting-store.js";

function nextView(follower: Awaited<ReturnType<typeof followSubject>>): Promise<SubjectView> {
  return new Promise((resolve, reject) => follower.listen(resolve, reject));
}

/** A subject with `history` episodes and state updates, then one change; the rows read for it. */
async function rowsReadForOneChange(history: number) {
  const base = new EmbeddedStore({ path: ":memory:" });
  try {
    const writer = await SharedState.open({
      store: base,
      subjectId: "s",
      agentId: "writer",
      peerId: 1,
      live: false,
    });
    for (let index = 0; index < history; index += 1) {
      await base.createEpisode({
        subjectId: "s",
        source: "writer",
        type: "note",
        payload: { content: `note ${index}` },
      });
      if (index % 10 === 0) await writer.put("plan", `field-${index}`, `value ${index}`);
    }
    const { store, counts } = countingReads(base);
    const follower = await followSubject(store, "s");
    const before = follower.view();
    const atStart = { ...counts };
    const changed = nextView(follower);
    await base.createEpisode({
      subjectId: "s",
      source: "writer",
      type: "note",
      payload: { content: "the change" },
    });
    const after = await changed;
    const perChange = { rows: counts.rows - atStart.rows, reads: counts.reads - atStart.reads };
    await follower.close();
    await writer.close();
    return { before, after, atStart, perChange };
  } finally {
    await base.close();
  }
}

describe("followSubject", () => {
  it.each([20, 400])(
    "reads no timeline rows for a change on a subject of %i episodes (the history is read once)",
    async (history) => {
      const outcome = await rowsReadForOneChange(history);
      expect(outcome.after.episodes).toBe(outcome.before.episodes + 1);
      // The start reads the history once (and the replica its updates): that grows with it.
      expect(outcome.atStart.rows).toBeGreaterThanOrEqual(history);
      // A change costs no re-read of the subject, however long its history.
      expect(outcome.perChange).toStrictEqual({ rows: 0, reads: 0 });
    },
  );

  it("applies a memory change in place (superseded) and a state update through its replica", async () => {
    const store = new EmbeddedStore({ path: ":memory:" });
    try {
      await store.createEpisode({
        subjectId: "s",
        source: "a",
        type: "architectural_decision",
        payload: { content: "use RS256", target: "auth" },
      });
      await store.compileMemories("s");
      const follower = await followSubject(store, "s");
      expect(follower.view().decisions.map((decision) => decision.content)).toStrictEqual([
        "use RS256",
      ]);
      await store.createEpisode({
        subjectId: "s",
        source: "a",
        type: "architectural_decision",
        payload: { content: "use ES256", target: "auth" },
      });
      const compiled = nextView(follower);
      await store.compileMemories("s");
      await compiled;
      // Let the burst (two memory changes) settle into its view.
      await new Promise((resolve) => setTimeout(resolve, 10));
      const view = follower.view();
      expect(view.decisions.map((decision) => decision.content)).toStrictEqual(["use ES256"]);
      expect(view.superseded.map((decision) => decision.content)).toStrictEqual(["use RS256"]);

      const a = await SharedState.open({
        store,
        subjectId: "s",
        agentId: "a",
        peerId: 1,
        live: false,
      });
      const b = await SharedState.open({
        store,
        subjectId: "s",
        agentId: "b",
        peerId: 2,
        live: false,
      });
      await a.put("plan", "token", "RS256");
      await b.put("plan", "token", "HS256");
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(follower.view().disputes).toHaveLength(1);
      await a.close();
      await b.close();
      await follower.close();
    } finally {
      await store.close();
    }
  });
});
