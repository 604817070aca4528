import { LoroDoc } from "loro-crdt";
import { describe, expect, it } from "vitest";
import type { Disputed } from "../../src/crdt/disputed.js";
import { receive, replica } from "./support/replicas.js";

describe("StateReplica concurrency", () => {
  it("a write its writer had not seen is concurrent, even when its order key is smaller", () => {
    const a = replica(1);
    const b = replica(2);
    a.write("alice", "plan", "token", "RS256");
    receive(b, a);
    // b writes elsewhere first: its next order key passes a's.
    b.write("bob", "plan", "tags", ["x"]);
    a.write("alice", "plan", "token", "HS256");
    b.write("bob", "plan", "token", "ES256");
    receive(a, b);
    const disputed = a.get("plan", "token") as Disputed;
    expect(disputed.contenders.map((contender) => contender.value)).toStrictEqual([
      "HS256",
      "ES256",
    ]);
  });

  it("a write its writer had seen is replaced, without escalation", () => {
    const a = replica(1);
    const b = replica(2);
    a.write("alice", "plan", "token", "RS256");
    a.write("alice", "plan", "token", "HS256");
    receive(b, a);
    b.write("bob", "plan", "token", "ES256");
    receive(a, b);
    expect(a.get("plan", "token")).toBe("ES256");
    expect(a.escalations()).toStrictEqual([]);
  });
});

describe("StateReplica reopened with its peer id", () => {
  it("appends after its earlier writes: its list in the document stays in write order", () => {
    const first = replica(5);
    const other = replica(6);
    first.write("alice", "plan", "tags", ["a"]);
    first.write("alice", "plan", "tags", ["b"]);
    other.write("bob", "plan", "tags", ["x"]);
    const reopened = replica(5);
    reopened.import([other.doc.export({ mode: "update" }), first.doc.export({ mode: "update" })]);
    expect(reopened.ownCounter()).toBe(2);
    reopened.write("alice", "plan", "tags", ["c"]);
    const attached = new LoroDoc();
    attached.import(reopened.doc.export({ mode: "update" }));
    const lists = attached.toJSON() as Record<string, string[]>;
    const tags = (lists["entries-5"] ?? []).map((row) => (JSON.parse(row) as unknown[])[4]);
    expect(tags).toStrictEqual([["a"], ["b"], ["c"]]);
    expect(lists["entries-6"]).toHaveLength(1);
  });
});
