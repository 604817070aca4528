import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedState } from "../../src/crdt/shared-state.js";

describe("OpenSharedStateOptions.onEscalation", () => {
  it("hears the escalations raised while open() loads the timeline", async () => {
    const store = new EmbeddedStore({ path: ":memory:" });
    try {
      const options = { store, subjectId: "run-1", live: false, delay: async () => undefined };
      const a = await SharedState.open({ ...options, agentId: "a", peerId: 1 });
      const b = await SharedState.open({ ...options, agentId: "b", peerId: 2 });
      await a.put("plan", "token", "RS256");
      await b.put("plan", "token", "HS256");
      await a.close();
      await b.close();
      const heard: string[] = [];
      const late: string[] = [];
      const reader = await SharedState.open({
        ...options,
        agentId: "reader",
        peerId: 3,
        onEscalation: (escalation) => heard.push(escalation.id),
      });
      reader.onEscalation((escalation) => late.push(escalation.id));
      expect(heard).toStrictEqual(["plan/token#0"]);
      // A listener added after open() hears only later escalations; escalations() has the rest.
      expect(late).toStrictEqual([]);
      expect(reader.escalations().map((escalation) => escalation.id)).toStrictEqual([
        "plan/token#0",
      ]);
      await reader.close();
    } finally {
      await store.close();
    }
  });
});
