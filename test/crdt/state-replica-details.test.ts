import { LoroDoc } from "loro-crdt";
import { describe, expect, it } from "vitest";
import { Disputed } from "../../src/crdt/disputed.js";
import { StateReplica } from "../../src/crdt/state-replica.js";

function replica(peerId = 1): StateReplica {
  let clock = 0;
  return new StateReplica({ subjectId: "s", peerId, now: () => ++clock });
}

/** Writes each text to plan/notes in turn; returns the notes and the segments stored. */
function appendAll(texts: readonly string[]): { notes: unknown; segments: string[] } {
  const writer = replica();
  for (const text of texts) writer.write("alice", "plan", "notes", text);
  const attribution = writer.attribution("plan", "notes") as Array<{ text: string }>;
  return { notes: writer.get("plan", "notes"), segments: attribution.map((line) => line.text) };
}

describe("StateReplica text writes", () => {
  it.each<[string, string[], string[]]>([
    ["a read-modify-write stores the addition", ["one", "one\ntwo"], ["one", "two"]],
    [
      "a write from an older read stores what follows the part it read",
      ["one", "one\ntwo", "one\nthree"],
      ["one", "two", "three"],
    ],
    [
      "a write that repeats two of three segments stores the rest",
      ["one", "one\ntwo", "one\ntwo\nthree", "one\ntwo\nfour"],
      ["one", "two", "three", "four"],
    ],
    [
      "a text not starting with the first segment is appended whole",
      ["one", "zero"],
      ["one", "zero"],
    ],
    [
      "a text extending a segment without a line break is appended whole",
      ["one", "one two"],
      ["one", "one two"],
    ],
    ["the text already held adds nothing", ["one", "one\ntwo", "one\ntwo"], ["one", "two"]],
    ["an empty text adds nothing", ["one", ""], ["one"]],
    ["an older text already held adds nothing", ["one", "one\ntwo", "one"], ["one", "two"]],
  ])("%s", (_, texts, segments) => {
    const result = appendAll(texts);
    expect(result.segments).toStrictEqual(segments);
    expect(result.notes).toBe(segments.join("\n"));
  });

  it("a write returns whether it stored anything", () => {
    const writer = replica();
    expect(writer.write("alice", "plan", "notes", "one")).toBe(true);
    expect(writer.write("alice", "plan", "notes", "one")).toBe(false);
    expect(writer.writeUpdate("alice", "plan", "notes", "one")).toBeUndefined();
    expect(writer.ownCounter()).toBe(1);
  });
});

/** a and b write plan/token and plan/alpha concurrently, then exchange. */
function twoDisputes(): { a: StateReplica; b: StateReplica } {
  const a = replica(1);
  const b = replica(2);
  a.write("alice", "plan", "token", "RS256");
  a.write("alice", "plan", "alpha", 1);
  b.write("bob", "plan", "token", "HS256");
  b.write("bob", "plan", "alpha", 2);
  a.import([b.doc.export({ mode: "update" })]);
  b.import([a.doc.export({ mode: "update" })]);
  return { a, b };
}

describe("StateReplica reads", () => {
  it("an empty list written to a set creates the field", () => {
    const writer = replica();
    expect(writer.write("alice", "plan", "tags", [])).toBe(true);
    expect(writer.get("plan", "tags")).toStrictEqual([]);
    expect(writer.list("plan")).toStrictEqual({ tags: [] });
  });

  it("a set write repeating an element holds and attributes it once", () => {
    const writer = replica();
    writer.write("alice", "plan", "tags", ["a", { b: 1, c: 2 }, "a", { c: 2, b: 1 }]);
    expect(writer.get("plan", "tags")).toStrictEqual(["a", { b: 1, c: 2 }]);
    expect(writer.attribution("plan", "tags")).toStrictEqual([
      { agentId: "alice", value: "a", at: 1 },
      { agentId: "alice", value: { b: 1, c: 2 }, at: 1 },
    ]);
  });

  it("a field or namespace never written reads as undefined", () => {
    const writer = replica();
    writer.write("alice", "plan", "tags", ["a"]);
    expect(writer.get("plan", "other")).toBeUndefined();
    expect(writer.get("other", "tags")).toBeUndefined();
    expect(writer.attribution("plan", "other")).toBeUndefined();
    expect(writer.list("other")).toStrictEqual({});
  });

  it("lists fields and namespaces sorted by key", () => {
    const writer = replica();
    writer.write("alice", "plan", "zeta", 1);
    writer.write("alice", "plan", "alpha", 2);
    writer.write("alice", "build", "notes", "ok");
    expect(writer.namespaces()).toStrictEqual(["build", "plan"]);
    expect(Object.keys(writer.list("plan"))).toStrictEqual(["alpha", "zeta"]);
    expect(JSON.stringify(writer.toJSON())).toBe(
      '{"build":{"notes":"ok"},"plan":{"alpha":2,"zeta":1}}',
    );
  });

  it("orders escalations by id, the same on every replica", () => {
    const { a, b } = twoDisputes();
    expect(a.escalations().map((escalation) => escalation.id)).toStrictEqual([
      "plan/alpha#0",
      "plan/token#0",
    ]);
    expect(b.escalations()).toStrictEqual(a.escalations());
  });

  it("returns copies: changing what a read returned changes nothing held", () => {
    const { a } = twoDisputes();
    a.write("alice", "plan", "tags", ["x"]);
    (a.get("plan", "tags") as string[]).push("y");
    (a.attribution("plan", "tags") as unknown[]).push("y");
    const [escalation] = a.escalations();
    if (escalation) escalation.id = "changed";
    expect(a.get("plan", "tags")).toStrictEqual(["x"]);
    expect(a.attribution("plan", "tags")).toHaveLength(1);
    expect(a.escalations()[0]?.id).toBe("plan/alpha#0");
  });

  it("version counts the operations held per peer", () => {
    const { a } = twoDisputes();
    expect(a.version()).toStrictEqual({ [a.peer]: 2, "2": 2 });
  });
});

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
    a.import([b.doc.export({ mode: "update" })]);
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
    a.import([b.doc.export({ mode: "update" })]);
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
    a.import([b.doc.export({ mode: "update" })]);
    expect(changes).toStrictEqual([
      { namespace: "plan", key: "tags", agentId: "bob", local: false },
      { namespace: "plan", key: "tags", agentId: "carol", local: false },
      { namespace: "plan", key: "notes", agentId: "bob", local: false },
    ]);
  });
});

describe("StateReplica concurrency", () => {
  it("a write its writer had not seen is concurrent, even when its order key is smaller", () => {
    const a = replica(1);
    const b = replica(2);
    a.write("alice", "plan", "token", "RS256");
    b.import([a.doc.export({ mode: "update" })]);
    // b writes elsewhere first: its next order key passes a's.
    b.write("bob", "plan", "tags", ["x"]);
    a.write("alice", "plan", "token", "HS256");
    b.write("bob", "plan", "token", "ES256");
    a.import([b.doc.export({ mode: "update" })]);
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
    b.import([a.doc.export({ mode: "update" })]);
    b.write("bob", "plan", "token", "ES256");
    a.import([b.doc.export({ mode: "update" })]);
    expect(a.get("plan", "token")).toBe("ES256");
    expect(a.escalations()).toStrictEqual([]);
  });
});

describe("StateReplica writes to a map with a disputed leaf", () => {
  /** a and b write plan/config.db.host concurrently; a holds both. */
  function disputedLeaf(): StateReplica {
    const a = replica(1);
    const b = replica(2);
    a.write("alice", "plan", "config", { db: { host: "a" }, port: 1 });
    b.write("bob", "plan", "config", { db: { host: "b" } });
    a.import([b.doc.export({ mode: "update" })]);
    return a;
  }

  function hostContenders(replicaHoldingIt: StateReplica): unknown {
    const config = replicaHoldingIt.get("plan", "config") as { db: { host: unknown } };
    const host = config.db.host;
    return host instanceof Disputed ? host.contenders.map((contender) => contender.value) : host;
  }

  it.each<[string, Record<string, unknown>, unknown]>([
    ["the leaf joins its dispute", { db: { host: "c" } }, ["a", "b", "c"]],
    ["another leaf leaves the dispute as it was", { port: 2 }, ["a", "b"]],
    ["a sibling leaf leaves the dispute as it was", { db: { user: "u" } }, ["a", "b"]],
  ])("a write to %s", (_, value, expected) => {
    const a = disputedLeaf();
    a.write("alice", "plan", "config", value);
    const contenders = hostContenders(a);
    expect(contenders).toStrictEqual(expected);
  });
});

describe("StateReplica resolve", () => {
  /** a (schema as given) and b (no schema) write plan/owner concurrently, then exchange. */
  function mismatch(schema?: Record<string, Record<string, "set">>) {
    let clock = 0;
    const now = () => ++clock;
    const a = new StateReplica({ subjectId: "s", peerId: 1, now, schema });
    const b = new StateReplica({ subjectId: "s", peerId: 2, now });
    a.write("alice", "plan", "owner", ["alice"]);
    b.write("bob", "plan", "owner", "bob");
    a.import([b.doc.export({ mode: "update" })]);
    b.import([a.doc.export({ mode: "update" })]);
    const exchange = () => {
      a.import([b.doc.export({ mode: "update" })]);
      b.import([a.doc.export({ mode: "update" })]);
    };
    return { a, b, exchange };
  }

  it("refuses a value that is not JSON, naming the disputed field, and writes nothing", () => {
    const { a } = mismatch();
    const counter = a.ownCounter();
    expect(() => a.resolve("plan/owner#0:kind", () => 1, "lead")).toThrow(
      expect.objectContaining({ name: "InvalidStateValueError", namespace: "plan", key: "owner" }),
    );
    expect(a.ownCounter()).toBe(counter);
  });

  it("refuses a value that does not fit the declared kind, and takes one that does", () => {
    const { a, b, exchange } = mismatch({ plan: { owner: "set" } });
    expect(() => a.resolve("plan/owner#0:kind", "alice", "lead")).toThrow(
      expect.objectContaining({
        name: "FieldKindError",
        namespace: "plan",
        key: "owner",
        expected: "set",
        received: "string",
      }),
    );
    a.resolve("plan/owner#0:kind", ["alice", "bob"], "lead");
    exchange();
    // Resolved as the declared set: a later write adds to it, on every replica.
    b.write("bob", "plan", "owner", ["carol"]);
    exchange();
    expect(a.get("plan", "owner")).toStrictEqual(["alice", "bob", "carol"]);
    expect(b.get("plan", "owner")).toStrictEqual(["alice", "bob", "carol"]);
  });

  it("an undeclared kind mismatch resolves to the kind of the value chosen", () => {
    const { a, b, exchange } = mismatch();
    a.resolve("plan/owner#0:kind", ["alice", "bob"], "lead");
    exchange();
    b.write("bob", "plan", "owner", ["carol"]);
    exchange();
    expect(a.get("plan", "owner")).toStrictEqual(["alice", "bob", "carol"]);
    expect(a.escalations()).toHaveLength(1);
  });

  it("a register dispute resolves to a register, even with a list", () => {
    const a = replica(1);
    const b = replica(2);
    a.write("alice", "plan", "token", "RS256");
    b.write("bob", "plan", "token", "HS256");
    a.import([b.doc.export({ mode: "update" })]);
    a.resolve("plan/token#0", ["RS256", "HS256"], "lead");
    expect(a.get("plan", "token")).toStrictEqual(["RS256", "HS256"]);
    // A later register write replaces it.
    a.write("alice", "plan", "token", "ES256");
    expect(a.get("plan", "token")).toBe("ES256");
    expect(a.escalations().map((escalation) => escalation.id)).toStrictEqual(["plan/token#0"]);
  });

  it("a write concurrent with a resolution reopens the escalation, the resolution one more contender", () => {
    const a = replica(1);
    const b = replica(2);
    a.write("alice", "plan", "token", "RS256");
    b.write("bob", "plan", "token", "HS256");
    a.import([b.doc.export({ mode: "update" })]);
    b.import([a.doc.export({ mode: "update" })]);
    a.resolve("plan/token#0", "RS256", "lead");
    // bob writes before the resolution reaches him.
    b.write("bob", "plan", "token", "ES256");
    a.import([b.doc.export({ mode: "update" })]);
    b.import([a.doc.export({ mode: "update" })]);
    for (const side of [a, b]) {
      const [escalation, ...others] = side.escalations();
      expect(others).toStrictEqual([]);
      expect(escalation?.resolution).toBeUndefined();
      expect(
        escalation?.contenders.map((contender) => [contender.agentId, contender.value]),
      ).toStrictEqual([
        ["alice", "RS256"],
        ["bob", "HS256"],
        ["lead", "RS256"],
        ["bob", "ES256"],
      ]);
      expect(
        (side.get("plan", "token") as Disputed).contenders.map((contender) => contender.value),
      ).toStrictEqual(["RS256", "ES256"]);
    }
  });

  it("resolving one leaf of a map leaves the other leaves as merged", () => {
    const a = replica(1);
    const b = replica(2);
    a.write("alice", "plan", "config", { db: { host: "a", port: 1 } });
    b.write("bob", "plan", "config", { db: { host: "b" }, retries: 3 });
    a.import([b.doc.export({ mode: "update" })]);
    a.resolve("plan/config.db.host#0", "c", "lead");
    expect(a.get("plan", "config")).toStrictEqual({ db: { host: "c", port: 1 }, retries: 3 });
    expect(a.escalations()[0]?.resolution?.by).toBe("lead");
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
