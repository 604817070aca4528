import { LoroDoc } from "loro-crdt";
import { describe, expect, it } from "vitest";
import { Disputed } from "../../src/crdt/disputed.js";
import { FieldKindError } from "../../src/crdt/errors/field-kind-error.js";
import { InvalidStateValueError } from "../../src/crdt/errors/invalid-state-value-error.js";
import { UnknownEscalationError } from "../../src/crdt/errors/unknown-escalation-error.js";
import { inferFieldKind } from "../../src/crdt/field-kind.js";
import { StateReplica } from "../../src/crdt/state-replica.js";

/** Two replicas with fixed peers and clocks; `exchange` delivers everything both ways. */
function pair(schema?: ConstructorParameters<typeof StateReplica>[0]["schema"]) {
  let clock = 1000;
  const now = () => clock++;
  const a = new StateReplica({ subjectId: "s", peerId: 1, now, schema });
  const b = new StateReplica({ subjectId: "s", peerId: 2, now, schema });
  const exchange = () => {
    a.import([b.doc.export({ mode: "update" })]);
    b.import([a.doc.export({ mode: "update" })]);
  };
  return { a, b, exchange };
}

describe("inferFieldKind", () => {
  it.each([
    ["tags", ["x"], "set"],
    ["config", { a: 1 }, "map"],
    ["notes", "hello", "text"],
    ["review_findings", "hello", "text"],
    ["log", "line", "text"],
    ["decision", "RS256", "register"],
    ["notes", 3, "register"],
    ["count", 3, "register"],
  ] as const)("%s = %j is a %s", (key, value, kind) => {
    expect(inferFieldKind(key, value)).toBe(kind);
  });
});

describe("StateReplica", () => {
  describe("mergeable kinds", () => {
    it("unions sets in first-added order without duplicates", () => {
      const { a, b, exchange } = pair();
      a.writeUpdate("alice", "plan", "tags", ["x", "y"]);
      b.writeUpdate("bob", "plan", "tags", ["y", "z"]);
      exchange();
      expect(a.get("plan", "tags")).toEqual(["x", "y", "z"]);
      expect(b.toJSON()).toStrictEqual(a.toJSON());
      expect(a.attribution("plan", "tags")).toEqual([
        { agentId: "alice", value: "x", at: 1000 },
        { agentId: "alice", value: "y", at: 1000 },
        { agentId: "bob", value: "z", at: 1001 },
      ]);
    });

    it("keeps concurrent text appends, and a read-modify-write stores only the addition", () => {
      const { a, b, exchange } = pair();
      a.writeUpdate("alice", "plan", "notes", "first");
      exchange();
      a.writeUpdate("alice", "plan", "notes", "first\nfrom alice");
      b.writeUpdate("bob", "plan", "notes", "from bob");
      exchange();
      expect(a.get("plan", "notes")).toBe("first\nfrom alice\nfrom bob");
      expect(b.get("plan", "notes")).toBe(a.get("plan", "notes"));
      expect(a.attribution("plan", "notes")).toEqual([
        { agentId: "alice", text: "first", at: 1000 },
        { agentId: "alice", text: "from alice", at: 1001 },
        { agentId: "bob", text: "from bob", at: 1002 },
      ]);
    });

    it("deep-merges maps and sums declared counters", () => {
      const { a, b, exchange } = pair({ stats: { runs: "counter" } });
      a.writeUpdate("alice", "plan", "config", { db: { host: "h" }, retries: 3 });
      b.writeUpdate("bob", "plan", "config", { db: { port: 5432 } });
      a.writeUpdate("alice", "stats", "runs", 2);
      b.writeUpdate("bob", "stats", "runs", 5);
      exchange();
      expect(a.get("plan", "config")).toEqual({ db: { host: "h", port: 5432 }, retries: 3 });
      expect(a.get("stats", "runs")).toBe(7);
      expect(a.attribution("stats", "runs")).toEqual({ alice: 2, bob: 5 });
      expect(a.attribution("plan", "config")).toMatchObject({
        "db.host": { agentId: "alice" },
        "db.port": { agentId: "bob" },
      });
      expect(a.escalations()).toEqual([]);
    });
  });

  describe("registers", () => {
    it("a write that has seen the previous one replaces it, without escalation", () => {
      const { a, b, exchange } = pair();
      a.writeUpdate("alice", "plan", "db", "postgres");
      exchange();
      b.writeUpdate("bob", "plan", "db", "mysql");
      exchange();
      expect(a.get("plan", "db")).toBe("mysql");
      expect(a.attribution("plan", "db")).toEqual({ agentId: "bob", value: "mysql", at: 1001 });
      expect(a.escalations()).toEqual([]);
    });

    it("concurrent equal values agree; concurrent different values are disputed on both replicas", () => {
      const { a, b, exchange } = pair();
      a.writeUpdate("alice", "plan", "same", "x");
      b.writeUpdate("bob", "plan", "same", "x");
      a.writeUpdate("alice", "plan", "db", "postgres");
      b.writeUpdate("bob", "plan", "db", "mysql");
      const raisedOnA: string[] = [];
      a.onEscalation(({ escalation }) => raisedOnA.push(escalation.id));
      exchange();
      exchange();
      expect(a.get("plan", "same")).toBe("x");
      const disputed = a.get("plan", "db");
      expect(disputed).toBeInstanceOf(Disputed);
      expect((disputed as Disputed).contenders).toEqual([
        { agentId: "alice", value: "postgres", at: 1002 },
        { agentId: "bob", value: "mysql", at: 1003 },
      ]);
      expect(raisedOnA).toEqual(["plan/db#0"]);
      expect(b.escalations()).toStrictEqual(a.escalations());
      expect(a.escalations()).toMatchObject([
        { id: "plan/db#0", reason: "concurrent-register", namespace: "plan", key: "db" },
      ]);
    });

    it("a plain write on a disputed register joins the dispute; only resolve ends it", () => {
      const { a, b, exchange } = pair();
      a.writeUpdate("alice", "plan", "db", "postgres");
      b.writeUpdate("bob", "plan", "db", "mysql");
      exchange();
      a.writeUpdate("alice", "plan", "db", "sqlite");
      exchange();
      const disputed = b.get("plan", "db") as Disputed;
      expect(disputed.contenders.map((contender) => contender.value)).toEqual([
        "postgres",
        "mysql",
        "sqlite",
      ]);
      b.resolve(disputed.escalationId, "postgres", "lead");
      exchange();
      expect(a.get("plan", "db")).toBe("postgres");
      expect(a.escalations()[0]?.resolution).toEqual({ value: "postgres", by: "lead", at: 1003 });
      expect(a.toJSON()).toStrictEqual(b.toJSON());
      a.writeUpdate("alice", "plan", "db", "cockroach");
      exchange();
      expect(b.get("plan", "db")).toBe("cockroach");
    });

    it("disputes one leaf of a map and keeps the rest merged", () => {
      const { a, b, exchange } = pair();
      a.writeUpdate("alice", "plan", "config", { db: { host: "a" }, port: 1 });
      b.writeUpdate("bob", "plan", "config", { db: { host: "b" } });
      exchange();
      const config = a.get("plan", "config") as { db: { host: unknown }; port: number };
      expect(config.port).toBe(1);
      expect(config.db.host).toBeInstanceOf(Disputed);
      expect(a.escalations().map((escalation) => escalation.key)).toEqual(["config.db.host"]);
      a.resolve("plan/config.db.host#0", "c", "lead");
      exchange();
      expect(b.get("plan", "config")).toEqual({ db: { host: "c" }, port: 1 });
    });
  });

  describe("kind mismatch", () => {
    it("escalates a list against a string (the write AgentSync drops) and keeps both", () => {
      const { a, b, exchange } = pair();
      a.writeUpdate("alice", "plan", "owner", ["alice", "carol"]);
      b.writeUpdate("bob", "plan", "owner", "bob");
      exchange();
      const disputed = b.get("plan", "owner") as Disputed;
      expect(disputed).toBeInstanceOf(Disputed);
      expect(disputed.contenders).toEqual([
        { agentId: "alice", value: ["alice", "carol"], at: 1000 },
        { agentId: "bob", value: "bob", at: 1001 },
      ]);
      expect(a.escalations()).toMatchObject([{ id: "plan/owner#0:kind", reason: "kind-mismatch" }]);
      a.resolve("plan/owner#0:kind", ["alice", "bob", "carol"], "lead");
      exchange();
      expect(b.get("plan", "owner")).toEqual(["alice", "bob", "carol"]);
      expect(b.escalations()[0]?.resolution?.by).toBe("lead");
    });
  });

  describe("incremental derivation", () => {
    it("local writes between reads derive the same state as a replica that imports them all", () => {
      const { a, b, exchange } = pair();
      for (let step = 0; step < 30; step++) {
        a.write("alice", "plan", "notes", `step ${step}`);
        a.write("alice", "plan", "token", `v${step}`);
        a.write("alice", "plan", "config", { db: { port: step } });
        // Reading between writes keeps views cached, so later writes extend them.
        expect(a.get("plan", "notes")).toMatch(new RegExp(`step ${step}$`));
      }
      a.write("alice", "plan", "notes", `${String(a.get("plan", "notes"))}\nlast`);
      const fresh = new StateReplica({ subjectId: "s", peerId: 3 });
      fresh.import([a.doc.export({ mode: "update" })]);
      expect(fresh.toJSON()).toEqual(a.toJSON());
      expect(fresh.attribution("plan", "notes")).toEqual(a.attribution("plan", "notes"));
      expect(String(a.get("plan", "notes")).split("\n")).toHaveLength(31);
      expect(a.escalations()).toEqual([]);
      exchange();
      expect(b.toJSON()).toEqual(a.toJSON());
    });

    it("imports read one at a time extend cached views to the same state as one batch", () => {
      let clock = 0;
      const now = () => ++clock;
      const schema = { plan: { hits: "counter" as const } };
      const writers = [1, 2, 3].map(
        (peerId) => new StateReplica({ subjectId: "s", peerId, now, schema }),
      );
      const updates: Uint8Array[] = [];
      for (let step = 0; step < 6; step++) {
        writers.forEach((writer, index) => {
          const agent = `agent-${index}`;
          for (const [key, value] of [
            ["tags", [`${agent}-${step}`, "shared", { nested: step % 2 }]],
            ["notes", `${agent} step ${step}`],
            ["hits", index + 1],
            ["__proto__", 1],
          ] as const) {
            const update = writer.writeUpdate(agent, "plan", key, value);
            if (update) updates.push(update);
          }
        });
        // Writers see each other now and then: later writes then follow earlier ones.
        if (step % 2 === 1) {
          for (const writer of writers) writer.import(updates);
        }
      }
      const batch = new StateReplica({ subjectId: "s", peerId: 9, schema });
      batch.import(updates);
      // In order, and in reverse (every arrival sorts first: views are derived again).
      for (const order of [updates, [...updates].reverse()]) {
        const stepwise = new StateReplica({ subjectId: "s", peerId: 8, schema });
        for (const update of order) {
          stepwise.import([update]);
          stepwise.toJSON();
          stepwise.attribution("plan", "tags");
        }
        expect(stepwise.toJSON()).toStrictEqual(batch.toJSON());
        for (const key of ["tags", "notes", "hits", "__proto__"]) {
          expect(stepwise.attribution("plan", key)).toStrictEqual(batch.attribution("plan", key));
        }
      }
      expect(batch.get("plan", "hits")).toBe(6 * (1 + 2 + 3));
      expect(Object.getPrototypeOf(batch.attribution("plan", "hits"))).toBe(Object.prototype);
    });

    it("a write to a register disputed by an import joins the dispute (the field is no longer quiet)", () => {
      const { a, b, exchange } = pair();
      a.write("alice", "plan", "token", "RS256");
      a.get("plan", "token");
      b.write("bob", "plan", "token", "HS256");
      exchange();
      a.write("alice", "plan", "token", "ES256");
      exchange();
      for (const replica of [a, b]) {
        const disputed = replica.get("plan", "token") as Disputed;
        expect(disputed).toBeInstanceOf(Disputed);
        expect(disputed.contenders.map((contender) => contender.value)).toEqual([
          "RS256",
          "HS256",
          "ES256",
        ]);
      }
      expect(a.escalations()).toHaveLength(1);
    });
  });

  describe("errors", () => {
    it("rejects values that are not JSON, values that break the schema, unknown escalations", () => {
      const { a } = pair({ plan: { tags: "set" } });
      expect(() => a.writeUpdate("alice", "plan", "x", undefined)).toThrow(InvalidStateValueError);
      expect(() => a.writeUpdate("alice", "plan", "x", Number.NaN)).toThrow(InvalidStateValueError);
      expect(() => a.writeUpdate("alice", "plan", "tags", "one")).toThrow(FieldKindError);
      expect(() => a.resolve("plan/nothing#0", 1, "lead")).toThrow(UnknownEscalationError);
    });
  });

  describe("options.onError", () => {
    /** Replica `a` has written a register that `b` wrote concurrently, not yet exchanged. */
    function concurrentWrites(onError?: (error: unknown) => void) {
      let clock = 1000;
      const now = () => clock++;
      const a = new StateReplica({ subjectId: "s", peerId: 1, now, onError });
      const b = new StateReplica({ subjectId: "s", peerId: 2, now });
      a.writeUpdate("alice", "plan", "db", "postgres");
      const update = b.writeUpdate("bob", "plan", "db", "mysql");
      if (update === undefined) throw new Error("bob's write changed nothing");
      return { a, update };
    }

    it("a throwing listener stops neither the other listeners nor the import", () => {
      const errors: unknown[] = [];
      const { a, update } = concurrentWrites((error) => errors.push(error));
      const changeFailure = new Error("change listener failed");
      const escalationFailure = new Error("escalation listener failed");
      const changes: string[] = [];
      const raised: string[] = [];
      a.onChange(() => {
        throw changeFailure;
      });
      a.onChange((change) => changes.push(change.agentId));
      a.onEscalation(() => {
        throw escalationFailure;
      });
      a.onEscalation(({ escalation }) => raised.push(escalation.id));
      expect(() => a.import([update])).not.toThrow();
      expect(a.get("plan", "db")).toBeInstanceOf(Disputed);
      expect(changes).toEqual(["bob"]);
      expect(raised).toEqual(["plan/db#0"]);
      expect(errors).toEqual([changeFailure, escalationFailure]);
      // A local write still completes and is exported after a listener threw.
      const from = a.ownCounter();
      expect(a.write("alice", "plan", "notes", "kept")).toBe(true);
      expect(a.exportOwn(from, a.ownCounter()).byteLength).toBeGreaterThan(0);
      expect(errors).toEqual([changeFailure, escalationFailure, changeFailure]);
    });

    it("without onError, rethrows the first listener error once every listener ran", () => {
      const { a, update } = concurrentWrites();
      const failure = new Error("change listener failed");
      const raised: string[] = [];
      a.onChange(() => {
        throw failure;
      });
      a.onEscalation(({ escalation }) => raised.push(escalation.id));
      expect(() => a.import([update])).toThrow(failure);
      expect(a.get("plan", "db")).toBeInstanceOf(Disputed);
      expect(raised).toEqual(["plan/db#0"]);
    });
  });
});

describe("StateReplica's Loro document (stored format 2)", () => {
  it("stays detached and logs what Loro would: one entry per write, in the writer's own list, deps on everything held, Lamport one past them", () => {
    const { a, b, exchange } = pair();
    a.write("agent-a", "plan", "tags", ["x"]);
    b.write("agent-b", "plan", "tags", ["y"]);
    b.write("agent-b", "plan", "notes", "one");
    exchange();
    a.write("agent-a", "plan", "notes", "two");
    b.import([a.exportOwn(1, 2)]);
    b.write("agent-b", "plan", "tags", ["z"]);
    expect(a.doc.isDetached()).toBe(true);
    expect(b.doc.isDetached()).toBe(true);
    const { changes } = b.doc.exportJsonUpdates(undefined, undefined, false);
    // Every operation's Lamport timestamp: its change's plus its offset in the change.
    const lamportOf = new Map<string, number>();
    for (const change of changes) {
      const [start, peer] = change.id.split("@");
      for (const op of change.ops) {
        const length =
          "value" in op.content && Array.isArray(op.content.value) ? op.content.value.length : 1;
        for (let offset = 0; offset < length; offset++) {
          const counter = op.counter + offset;
          lamportOf.set(`${counter}@${peer}`, change.lamport + counter - Number(start));
        }
      }
    }
    for (const change of changes) {
      const deps = change.deps.map((dep) => lamportOf.get(dep) ?? Number.NaN);
      expect(change.lamport).toBe(deps.length === 0 ? 0 : Math.max(...deps) + 1);
    }
    // b's last write had seen everything b held; a's second write had seen b's first two, so
    // it is the one head (Loro's frontiers, as a commit would have it).
    expect(changes.find((change) => change.id === `2@${b.peer}`)?.deps).toStrictEqual([
      `1@${a.peer}`,
    ]);
    // An ordinary attached document holding the same log shows one list per writer.
    const attached = new LoroDoc();
    attached.import(b.doc.export({ mode: "update" }));
    const lists = attached.toJSON() as Record<string, unknown[]>;
    expect(Object.keys(lists).sort()).toStrictEqual(
      [`entries-${a.peer}`, `entries-${b.peer}`].sort(),
    );
    expect(lists[`entries-${a.peer}`]).toHaveLength(2);
    expect(lists[`entries-${b.peer}`]).toHaveLength(3);
    a.import([b.exportOwn(2, 3)]);
    expect(JSON.stringify(a.toJSON())).toBe(JSON.stringify(b.toJSON()));
  });

  it("round-trips any string through its entries: non-ASCII, emoji, lone surrogates, quotes", () => {
    const { a, b, exchange } = pair();
    const texts = [
      "naïve — 日本語",
      "🚀 launch",
      "lone \ud800 surrogate",
      'quote " and \\ backslash\n',
    ];
    for (const text of texts) a.write("agent-a", "plan", "tags", [text]);
    exchange();
    expect(b.get("plan", "tags")).toStrictEqual(texts);
    const fresh = new StateReplica({ subjectId: "s", peerId: 3 });
    fresh.import([a.exportSnapshot()]);
    expect(fresh.get("plan", "tags")).toStrictEqual(texts);
  });
});
