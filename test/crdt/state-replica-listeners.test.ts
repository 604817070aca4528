import { describe, expect, it } from "vitest";
import { receive, replica } from "./support/replicas.js";

describe("StateReplica listeners", () => {
  it("onChange and onEscalation return an unsubscribe", () => {
    const a = replica(1);
    const b = replica(2);
    const changes: unknown[] = [];
    const raised: unknown[] = [];
    a.onChange((change) => changes.push(change))();
    a.onEscalation((escalation) => raised.push(escalation))();
    a.write("alice", "plan", "token", "RS256");
    b.write("bob", "plan", "token", "HS256");
    receive(a, b);
    expect(a.escalations()).toHaveLength(1);
    expect(changes).toStrictEqual([]);
    expect(raised).toStrictEqual([]);
  });

  it("an escalation listener gets a copy: changing it changes nothing held", () => {
    const a = replica(1);
    const b = replica(2);
    a.onEscalation(({ escalation }) => {
      escalation.contenders.length = 0;
      escalation.key = "changed";
    });
    a.write("alice", "plan", "token", "RS256");
    b.write("bob", "plan", "token", "HS256");
    receive(a, b);
    expect(a.escalations()[0]).toMatchObject({ key: "token", contenders: [{}, {}] });
  });

  it("a local write of another kind raises the kind mismatch at once, announced here", () => {
    const writer = replica(1);
    const raised: unknown[] = [];
    writer.onEscalation(({ escalation, announcedHere }) =>
      raised.push([escalation.id, announcedHere]),
    );
    writer.write("alice", "plan", "tags", ["x"]);
    writer.write("alice", "plan", "tags", ["y"]);
    expect(raised).toStrictEqual([]);
    writer.write("alice", "plan", "tags", "z");
    expect(raised).toStrictEqual([["plan/tags#0:kind", true]]);
    // Raised once: a later write to the disputed field raises nothing new.
    writer.write("alice", "plan", "tags", "w");
    expect(raised).toHaveLength(1);
  });

  it("a set and a text written to one field are a kind mismatch too", () => {
    const writer = replica(1);
    const raised: string[] = [];
    writer.onEscalation(({ escalation }) => raised.push(escalation.id));
    writer.write("alice", "plan", "notes", "a line");
    writer.write("alice", "plan", "notes", ["a", "list"]);
    expect(raised).toStrictEqual(["plan/notes#0:kind"]);
    expect(writer.escalations()).toMatchObject([{ reason: "kind-mismatch", key: "notes" }]);
  });

  it("an import of nothing new tells no one", () => {
    const a = replica(1);
    const b = replica(2);
    b.write("bob", "plan", "tags", ["x"]);
    const update = b.doc.export({ mode: "update" });
    a.import([update]);
    const changes: unknown[] = [];
    a.onChange((change) => changes.push(change));
    a.import([]);
    a.import([update]);
    a.import([update, update]);
    expect(changes).toStrictEqual([]);
    expect(a.get("plan", "tags")).toStrictEqual(["x"]);
  });

  it("tells one change per field and agent of an import, local false", () => {
    const a = replica(1);
    const b = replica(2);
    b.write("bob", "plan", "tags", ["x"]);
    b.write("bob", "plan", "tags", ["y"]);
    b.write("carol", "plan", "tags", ["z"]);
    b.write("bob", "plan", "notes", "n");
    const changes: unknown[] = [];
    a.onChange((change) => changes.push(change));
    receive(a, b);
    expect(changes).toStrictEqual([
      { namespace: "plan", key: "tags", agentId: "bob", local: false },
      { namespace: "plan", key: "tags", agentId: "carol", local: false },
      { namespace: "plan", key: "notes", agentId: "bob", local: false },
    ]);
  });
});
