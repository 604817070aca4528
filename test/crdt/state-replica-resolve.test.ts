import { describe, expect, it } from "vitest";
import type { Disputed } from "../../src/crdt/disputed.js";
import { StateReplica } from "../../src/crdt/state-replica.js";
import { receive, replica } from "./support/replicas.js";

/** alice (replica 1) and bob (replica 2) write plan/token apart; a holds both: dispute plan/token#0. */
function tokenDisputedOnA() {
  const a = replica(1);
  const b = replica(2);
  a.write("alice", "plan", "token", "RS256");
  b.write("bob", "plan", "token", "HS256");
  receive(a, b);
  return { a, b };
}

describe("StateReplica resolve", () => {
  /** a (schema as given) and b (no schema) write plan/owner concurrently, then exchange. */
  function mismatch(schema?: Record<string, Record<string, "set">>) {
    let clock = 0;
    const now = () => ++clock;
    const a = new StateReplica({ subjectId: "s", peerId: 1, now, schema });
    const b = new StateReplica({ subjectId: "s", peerId: 2, now });
    a.write("alice", "plan", "owner", ["alice"]);
    b.write("bob", "plan", "owner", "bob");
    receive(a, b);
    receive(b, a);
    const exchange = () => {
      receive(a, b);
      receive(b, a);
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
    const { a } = tokenDisputedOnA();
    a.resolve("plan/token#0", ["RS256", "HS256"], "lead");
    expect(a.get("plan", "token")).toStrictEqual(["RS256", "HS256"]);
    // A later register write replaces it.
    a.write("alice", "plan", "token", "ES256");
    expect(a.get("plan", "token")).toBe("ES256");
    expect(a.escalations().map((escalation) => escalation.id)).toStrictEqual(["plan/token#0"]);
  });

  it("a write concurrent with a resolution reopens the escalation, the resolution one more contender", () => {
    const { a, b } = tokenDisputedOnA();
    receive(b, a);
    a.resolve("plan/token#0", "RS256", "lead");
    // bob writes before the resolution reaches him.
    b.write("bob", "plan", "token", "ES256");
    receive(a, b);
    receive(b, a);
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
    receive(a, b);
    a.resolve("plan/config.db.host#0", "c", "lead");
    expect(a.get("plan", "config")).toStrictEqual({ db: { host: "c", port: 1 }, retries: 3 });
    expect(a.escalations()[0]?.resolution?.by).toBe("lead");
  });
});
