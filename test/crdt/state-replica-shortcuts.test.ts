import { LoroDoc } from "loro-crdt";
import { describe, expect, it } from "vitest";
import { Disputed } from "../../src/crdt/disputed.js";
import type { StateReplica } from "../../src/crdt/state-replica.js";
import { receive, replica, replicaWithDisputedHost } from "./support/replicas.js";

/**
 * The read side's shortcuts must never be taken where the general path would find a dispute:
 * a write to a field that once held two kinds, a map write near a disputed leaf, rows in Loro
 * containers that are not entry lists, and the copies readers get.
 */

function exchange(a: StateReplica, b: StateReplica): void {
  receive(a, b);
  receive(b, a);
}

/** The contenders' values of a disputed value, or the value itself when it is not disputed. */
function contendersOf(value: unknown): unknown {
  return value instanceof Disputed ? value.contenders.map((contender) => contender.value) : value;
}

describe("StateReplica local writes to a field that once held two kinds", () => {
  it("a write of the kind a resolution replaced raises the next kind mismatch at once", () => {
    const a = replica(1);
    const b = replica(2);
    a.write("alice", "plan", "owner", ["alice"]);
    b.write("bob", "plan", "owner", "bob");
    exchange(a, b);
    a.resolve("plan/owner#0:kind", ["alice", "bob"], "lead");
    // Resolved to a set: the field holds no dispute, but it has held a register too.
    expect(a.get("plan", "owner")).toStrictEqual(["alice", "bob"]);
    const raised: unknown[] = [];
    a.onEscalation(({ escalation, announcedHere }) => raised.push([escalation.id, announcedHere]));
    a.write("alice", "plan", "owner", "carol");
    expect(raised).toStrictEqual([["plan/owner#1:kind", true]]);
    expect(contendersOf(a.get("plan", "owner"))).toStrictEqual([["alice", "bob"], "carol"]);
  });
});

describe("StateReplica map writes beside a disputed leaf", () => {
  /** a and b write plan/config.db.host concurrently (a also port 1); a holds both. */
  function config(holder: StateReplica): { db: unknown; port?: unknown } {
    return holder.get("plan", "config") as { db: unknown; port?: unknown };
  }

  it.each<[string, Record<string, unknown>]>([
    ["another leaf", { port: 2 }],
    ["a sibling under the same parent", { db: { user: "u" }, port: 2 }],
  ])("a write to %s replaces the writer's own value there and joins nothing", (_, value) => {
    const a = replicaWithDisputedHost();
    a.write("alice", "plan", "config", value);
    const { db, port } = config(a);
    // Joining the host's dispute would keep alice's port 1 beside the new port 2.
    expect(port).toBe(2);
    expect(contendersOf((db as { host: unknown }).host)).toStrictEqual(["a", "b"]);
  });

  it("an empty object written to the map joins every dispute instead of clearing it", () => {
    const a = replicaWithDisputedHost();
    a.write("alice", "plan", "config", {});
    expect(contendersOf((config(a).db as { host: unknown }).host)).toStrictEqual(["a", "b"]);
  });

  it("a scalar written above the disputed leaf joins its dispute: the parent is disputed", () => {
    const a = replicaWithDisputedHost();
    a.write("alice", "plan", "config", { db: "x" });
    expect(contendersOf(config(a).db)).toStrictEqual(["x", { host: "a" }, { host: "b" }]);
  });

  it("a leaf written below a disputed scalar joins its dispute", () => {
    const a = replica(1);
    const b = replica(2);
    a.write("alice", "plan", "config", { db: "x" });
    b.write("bob", "plan", "config", { db: "y" });
    receive(a, b);
    a.write("alice", "plan", "config", { db: { host: "z" } });
    expect(contendersOf(config(a).db)).toStrictEqual(["x", "y", { host: "z" }]);
  });
});

describe("StateReplica import of Loro containers that are not entry lists", () => {
  const entry = JSON.stringify(["plan", "tags", "set", "mallory", ["x"], 5, 0, 1]);

  it.each<[string, (doc: LoroDoc) => void]>([
    ["a list of another name", (doc) => doc.getList("notes").push(entry)],
    ["a map named like an entry list", (doc) => doc.getMap("entries-9").set("row", [entry])],
  ])("ignores the rows of %s", (_, write) => {
    const foreign = new LoroDoc();
    foreign.setPeerId(9);
    write(foreign);
    foreign.commit();
    const holder = replica(1);
    holder.import([foreign.export({ mode: "update" })]);
    expect(holder.namespaces()).toStrictEqual([]);
    expect(holder.get("plan", "tags")).toBeUndefined();
  });
});

describe("StateReplica reads of a map", () => {
  it("return copies: changing a returned map, or a list in it, changes nothing held", () => {
    const holder = replica(1);
    holder.write("alice", "plan", "config", { db: { host: "a" }, tags: ["x"] });
    const read = holder.get("plan", "config") as { db: { host: string }; tags: string[] };
    read.db.host = "changed";
    read.tags.push("y");
    expect(holder.get("plan", "config")).toStrictEqual({ db: { host: "a" }, tags: ["x"] });
  });
});
