import { LoroDoc } from "loro-crdt";
import { describe, expect, it, vi } from "vitest";
import { Disputed } from "../../src/crdt/disputed.js";
import { type StateChange, StateReplica } from "../../src/crdt/state-replica.js";
import { SharedCtxError } from "../../src/errors.js";
import { replicaPair as replicas } from "./support/replica-pair.js";

/**
 * A replica's log as an ordinary (attached) Loro document shows it: every list by name, each
 * entry parsed from its stored JSON row. Opening it fails if a write was logged at a position
 * its list does not have.
 */
function listsOf(replica: StateReplica): Record<string, unknown[][]> {
  const attached = new LoroDoc();
  attached.import(replica.exportSnapshot());
  const lists = attached.toJSON() as Record<string, string[]>;
  return Object.fromEntries(
    Object.entries(lists).map(([name, rows]) => [name, rows.map((row) => JSON.parse(row))]),
  );
}

/** The stored rows of a replica's own list (format 2: `n k f a v t g s`, then `j r rp rv`). */
function ownRows(replica: StateReplica): unknown[][] {
  return listsOf(replica)[`entries-${replica.peer}`] ?? [];
}

// The stored rows are what every other replica, and an older version opening the same store, reads
// (stored format 2): a join list where the write joined no dispute is a claim it never made.
describe("StateReplica.write: the entry it stores", () => {
  it("stores no join list when there is no dispute to join: new fields, text appends, a register against a kind mismatch", () => {
    const { a, b, exchange } = replicas();
    a.write("alice", "plan", "decision", "RS256");
    a.write("alice", "plan", "notes", "one");
    a.write("alice", "plan", "notes", "one\ntwo");
    // A register and a set written concurrently: a kind mismatch, with no register dispute.
    a.write("alice", "plan", "owner", "alice");
    b.write("bob", "plan", "owner", ["bob"]);
    exchange();
    a.write("alice", "plan", "owner", "carol");
    expect(a.get("plan", "owner")).toBeInstanceOf(Disputed);
    expect(ownRows(a)).toStrictEqual([
      ["plan", "decision", "register", "alice", "RS256", 1, 0, 1],
      ["plan", "notes", "text", "alice", "one", 2, 0, 2],
      ["plan", "notes", "text", "alice", "two", 3, 0, 3],
      ["plan", "owner", "register", "alice", "alice", 4, 0, 4],
      ["plan", "owner", "register", "alice", "carol", 6, 0, 5],
    ]);
  });

  it("joins the dispute of a map leaf it writes, even beside a leaf that is not disputed", () => {
    const { a, b, exchange } = replicas();
    a.write("alice", "plan", "config", { alg: "RS256" });
    b.write("bob", "plan", "config", { alg: "HS256" });
    exchange();
    a.write("alice", "plan", "config", { alg: "ES256", ttl: 60 });
    const [, joined] = ownRows(a);
    expect(joined?.[8]).toStrictEqual([`${a.peer}:0`, `${b.peer}:0`]);
    // Joined, the write is one more contender of the open dispute instead of ending it.
    const config = a.get("plan", "config") as { alg: unknown; ttl: unknown };
    expect(config.ttl).toBe(60);
    expect(config.alg).toBeInstanceOf(Disputed);
    expect((config.alg as Disputed).contenders.map((contender) => contender.value)).toStrictEqual([
      "RS256",
      "HS256",
      "ES256",
    ]);
  });

  it("writes a map onto a disputed register: the whole-field dispute is no leaf to join", () => {
    const { a, b, exchange } = replicas();
    a.write("alice", "plan", "token", "RS256");
    b.write("bob", "plan", "token", "HS256");
    exchange();
    expect(a.write("alice", "plan", "token", { alg: "RS256" })).toBe(true);
    expect(ownRows(a).at(-1)).toStrictEqual([
      "plan",
      "token",
      "map",
      "alice",
      { alg: "RS256" },
      3,
      0,
      2,
    ]);
    expect(a.escalations().map((escalation) => escalation.id)).toStrictEqual([
      "plan/token#0",
      "plan/token#0:kind",
    ]);
  });
});

describe("StateReplica.write: where its entry goes", () => {
  it("appends to its own list after importing another writer's entries", () => {
    const { a, b } = replicas();
    b.write("bob", "plan", "tags", ["x"]);
    b.write("bob", "plan", "tags", ["y"]);
    a.import([b.exportSnapshot()]);
    a.write("alice", "plan", "tags", ["z"]);
    a.write("alice", "plan", "tags", ["w"]);
    const lists = listsOf(a);
    expect(lists[`entries-${a.peer}`]?.map((row) => row[4])).toStrictEqual([["z"], ["w"]]);
    expect(lists[`entries-${b.peer}`]?.map((row) => row[4])).toStrictEqual([["x"], ["y"]]);
  });

  it("reopened (the same peer) on its own earlier entries, appends after them", () => {
    const { a } = replicas();
    a.write("alice", "plan", "tags", ["x"]);
    a.write("alice", "plan", "tags", ["y"]);
    const reopened = new StateReplica({ subjectId: "s", peerId: 1 });
    reopened.import([a.exportSnapshot()]);
    reopened.write("alice", "plan", "tags", ["z"]);
    expect(ownRows(reopened).map((row) => row[4])).toStrictEqual([["x"], ["y"], ["z"]]);
  });

  it("reopened on a format 1 document it wrote (one shared list), starts its own list at 0", () => {
    const old = new LoroDoc();
    old.setPeerId(1);
    const entry = {
      n: "plan",
      k: "owner",
      f: "register",
      a: "alice",
      v: "alice",
      t: 1,
      g: 0,
      s: 1,
    };
    old.getList("entries").push(JSON.stringify(entry));
    old.commit();
    const reopened = new StateReplica({ subjectId: "s", peerId: 1, now: () => 2 });
    reopened.import([old.export({ mode: "update" })]);
    reopened.write("alice", "plan", "owner", "bob");
    expect(reopened.get("plan", "owner")).toBe("bob");
    expect(ownRows(reopened)).toStrictEqual([
      ["plan", "owner", "register", "alice", "bob", 2, 0, 2],
    ]);
    expect(listsOf(reopened).entries).toHaveLength(1);
  });

  it("fails, counting nothing, when Loro does not log it", () => {
    const { a } = replicas();
    a.write("alice", "plan", "tags", ["x"]);
    vi.spyOn(a.doc, "importJsonUpdates").mockReturnValueOnce({
      success: new Map(),
      pending: new Map([[`${a.peer}` as `${number}`, { start: 1, end: 2 }]]),
    });
    expect(() => a.write("alice", "plan", "tags", ["y"])).toThrow(
      new SharedCtxError(`Loro did not log write ${a.peer}:1: one of its dependencies is missing`),
    );
    expect(a.ownCounter()).toBe(1);
    expect(a.get("plan", "tags")).toStrictEqual(["x"]);
    // The next write takes the counter the failed one did not use.
    a.write("alice", "plan", "tags", ["z"]);
    expect(ownRows(a).map((row) => row[4])).toStrictEqual([["x"], ["z"]]);
  });
});

describe("StateReplica.write: text", () => {
  it("an empty text written to a text holding an empty line adds nothing", () => {
    const { a } = replicas();
    expect(a.write("alice", "plan", "notes", "")).toBe(true);
    expect(a.write("alice", "plan", "notes", "")).toBe(false);
    expect(a.get("plan", "notes")).toBe("");
  });

  it("an empty first line is no prefix: a text starting with a line break is stored whole", () => {
    const { a } = replicas();
    a.write("alice", "plan", "notes", "");
    a.write("alice", "plan", "notes", "\nsummary");
    expect(ownRows(a).map((row) => row[4])).toStrictEqual(["", "\nsummary"]);
    expect(a.get("plan", "notes")).toBe("\n\nsummary");
  });

  it("a text written over a set is stored whole, leading line breaks and all (a kind mismatch)", () => {
    const { a } = replicas();
    a.write("alice", "plan", "notes", ["one", "two", "three"]);
    expect(a.write("alice", "plan", "notes", "\n\nsummary")).toBe(true);
    const notes = a.get("plan", "notes") as Disputed;
    expect(notes.contenders.map((contender) => contender.value)).toStrictEqual([
      ["one", "two", "three"],
      "\n\nsummary",
    ]);
  });
});

describe("StateReplica.exportOwn", () => {
  it("exports exactly the own operations in [from, to), from the middle of the log too", () => {
    const { a, b } = replicas();
    a.write("alice", "plan", "tags", ["x"]);
    b.import([a.exportOwn(0, 1)]);
    a.write("alice", "plan", "tags", ["y"]);
    a.write("alice", "plan", "tags", ["z"]);
    b.import([a.exportOwn(1, 2)]);
    expect(b.version()).toStrictEqual({ [a.peer]: 2 });
    expect(b.get("plan", "tags")).toStrictEqual(["x", "y"]);
  });
});

describe("StateReplica.onChange", () => {
  it("says whether a change was written here or imported", () => {
    const { a, b } = replicas();
    const seen: StateChange[] = [];
    a.onChange((change) => seen.push(change));
    b.onChange((change) => seen.push(change));
    a.write("alice", "plan", "tags", ["x"]);
    b.import([a.exportSnapshot()]);
    expect(seen).toStrictEqual([
      { namespace: "plan", key: "tags", agentId: "alice", local: true },
      { namespace: "plan", key: "tags", agentId: "alice", local: false },
    ]);
  });
});
