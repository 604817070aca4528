import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../src/context/context-store.js";
import { Disputed } from "../../src/crdt/disputed.js";
import { type FieldView, materializeField } from "../../src/crdt/materialize-field.js";
import { extendView } from "../../src/crdt/quiet-field.js";
import { compareEntries, type EntryRecord, type StoredEntry } from "../../src/crdt/state-entry.js";

/**
 * The merge and escalation rules of one field, tried on hand-made histories: each writer holds a
 * version vector (what it has seen), so "happened before", a resolution's `rv` and the Lamport
 * order key all come from one causal model, as they do in a replica.
 */

interface WriteOptions {
  /** The generation the writer saw (how many resolutions). @default 0 */
  g?: number;
  /** Heads this write joins instead of replacing. */
  j?: readonly EntryRecord[];
  /** Makes the write a resolution of this escalation (with the writer's version vector). */
  r?: string;
  /** A leaf resolution's path. */
  rp?: string[];
}

interface Writer {
  write(kind: StoredEntry["f"], value: JsonValue, options?: WriteOptions): EntryRecord;
  /** The writer imports these entries (and everything they had seen). */
  sees(...entries: EntryRecord[]): Writer;
  /** The writer's order key moves on by `steps`, as writes to other fields move it. */
  elsewhere(steps: number): Writer;
}

function history() {
  const entries: EntryRecord[] = [];
  const vectors = new Map<EntryRecord, Record<string, number>>();
  let clock = 1000;
  const writer = (peer: string, agentId: string): Writer => {
    const known = new Map<string, number>();
    let order = 0;
    const self: Writer = {
      write(kind, value, options = {}) {
        const counter = known.get(peer) ?? 0;
        const vector = Object.fromEntries(known);
        vector[peer] = counter;
        order += 1;
        const data: StoredEntry = {
          n: "ns",
          k: "k",
          f: kind,
          a: agentId,
          v: value,
          t: ++clock,
          g: options.g ?? 0,
          s: order,
        };
        if (options.j) data.j = options.j.map((entry) => entry.id);
        if (options.r !== undefined) {
          data.r = options.r;
          data.rv = { ...vector };
          if (options.rp) data.rp = options.rp;
        }
        const entry: EntryRecord = { id: `${peer}:${counter}`, peer, counter, data };
        known.set(peer, counter + 1);
        vectors.set(entry, vector);
        entries.push(entry);
        return entry;
      },
      sees(...seen) {
        for (const entry of seen) {
          for (const [other, count] of Object.entries(vectors.get(entry) ?? {})) {
            known.set(other, Math.max(known.get(other) ?? 0, count));
          }
          known.set(entry.peer, Math.max(known.get(entry.peer) ?? 0, entry.counter + 1));
          order = Math.max(order, entry.data.s);
        }
        return self;
      },
      elsewhere(steps) {
        order += steps;
        return self;
      },
    };
    return self;
  };
  const before = (earlier: EntryRecord, later: EntryRecord): boolean =>
    (vectors.get(later)?.[earlier.peer] ?? 0) > earlier.counter;
  return { writer, entries, before };
}

type History = ReturnType<typeof history>;

/** The field's view, derived on the one-pass path where it applies and on the general one: both must agree. */
function derive(h: History): FieldView {
  const input = {
    subjectId: "s",
    namespace: "ns",
    key: "k",
    entries: [...h.entries].sort(compareEntries),
    before: h.before,
  };
  const view = materializeField(input);
  const general = materializeField({ ...input, general: true });
  expect(json(view.value)).toStrictEqual(json(general.value));
  expect(Object.keys(view.value ?? {})).toStrictEqual(Object.keys(general.value ?? {}));
  expect(json(view.attribution)).toStrictEqual(json(general.attribution));
  expect(view.escalations).toStrictEqual(general.escalations);
  expect(view.kind).toBe(general.kind);
  expect(view.generation).toBe(general.generation);
  expect(view.disputedHeads).toStrictEqual(general.disputedHeads);
  expect(view.escalationPaths).toStrictEqual(general.escalationPaths);
  expect(view.announcers).toStrictEqual(general.announcers);
  return view;
}

/** A value as `toJSON()` shows it (a `Disputed` as its escalation and contenders). */
function json(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** Escalations by id: open (`null`) or the resolution's value. */
function outcomes(view: FieldView): Record<string, unknown> {
  return Object.fromEntries(
    view.escalations.map((escalation) => [escalation.id, escalation.resolution?.value ?? null]),
  );
}

function contenders(view: FieldView, id: string): unknown[] {
  const escalation = view.escalations.find((candidate) => candidate.id === id);
  return (escalation?.contenders ?? []).map((contender) => [contender.agentId, contender.value]);
}

function disputeId(value: unknown): string | undefined {
  return value instanceof Disputed ? value.escalationId : undefined;
}

describe("materializeField", () => {
  describe("a register", () => {
    it("escalates concurrent different values, naming both authors", () => {
      const h = history();
      const a = h.writer("1", "alice").write("register", "RS256");
      const b = h.writer("2", "bob").write("register", "HS256");
      const view = derive(h);
      expect(view.escalations).toStrictEqual([
        {
          id: "ns/k#0",
          subjectId: "s",
          namespace: "ns",
          key: "k",
          reason: "concurrent-register",
          contenders: [
            { agentId: "alice", value: "RS256", at: a.data.t },
            { agentId: "bob", value: "HS256", at: b.data.t },
          ],
          raisedAt: b.data.t,
        },
      ]);
      expect(json(view.value)).toStrictEqual({
        disputed: "ns/k#0",
        contenders: [
          { agentId: "alice", value: "RS256", at: a.data.t },
          { agentId: "bob", value: "HS256", at: b.data.t },
        ],
      });
      expect(view.kind).toBe("register");
      expect(view.disputedHeads).toStrictEqual(new Map([["", [a.id, b.id]]]));
      expect(view.announcers).toStrictEqual(new Map([["ns/k#0", "2"]]));
      expect(view.escalationPaths).toStrictEqual(new Map([["ns/k#0", undefined]]));
      expect(view.generation).toBe(0);
    });

    it("keeps writers who agree out of a dispute", () => {
      const h = history();
      const a = h.writer("1", "alice").write("register", "x");
      h.writer("2", "bob").write("register", "x");
      h.writer("3", "carol").sees(a).write("register", "y");
      const view = derive(h);
      expect(contenders(view, "ns/k#0")).toStrictEqual([
        ["bob", "x"],
        ["carol", "y"],
      ]);
    });

    it("names every writer of a three-way dispute", () => {
      const h = history();
      h.writer("1", "alice").write("register", "a");
      h.writer("2", "bob").write("register", "b");
      h.writer("3", "carol").write("register", "c");
      const view = derive(h);
      expect(contenders(view, "ns/k#0")).toStrictEqual([
        ["alice", "a"],
        ["bob", "b"],
        ["carol", "c"],
      ]);
      expect(disputeId(view.value)).toBe("ns/k#0");
    });

    it("takes a resolution's value and opens the next generation", () => {
      const h = history();
      const a = h.writer("1", "alice").write("register", "a");
      const b = h.writer("2", "bob").write("register", "b");
      const r = h.writer("3", "lead").sees(a, b).write("register", "z", { r: "ns/k#0" });
      const view = derive(h);
      expect(view.value).toBe("z");
      expect(view.escalations[0]?.resolution).toStrictEqual({
        value: "z",
        by: "lead",
        at: r.data.t,
      });
      expect(view.generation).toBe(1);
      expect(view.disputedHeads.size).toBe(0);
    });

    it("raises a new escalation for a dispute in the next generation, the resolved one staying resolved", () => {
      const h = history();
      const alice = h.writer("1", "alice");
      const bob = h.writer("2", "bob");
      const a = alice.write("register", "a");
      const b = bob.write("register", "b");
      const r = h.writer("3", "lead").sees(a, b).write("register", "z", { r: "ns/k#0" });
      alice.sees(r).write("register", "c", { g: 1 });
      bob.sees(r).write("register", "d", { g: 1 });
      const view = derive(h);
      expect(outcomes(view)).toStrictEqual({ "ns/k#0": "z", "ns/k#1": null });
      expect(contenders(view, "ns/k#1")).toStrictEqual([
        ["alice", "c"],
        ["bob", "d"],
      ]);
      expect(disputeId(view.value)).toBe("ns/k#1");
      expect(view.generation).toBe(1);
    });

    it("reopens a dispute when a write was concurrent with its resolution", () => {
      const h = history();
      const alice = h.writer("1", "alice");
      const a = alice.write("register", "a");
      const b = h.writer("2", "bob").write("register", "b");
      h.writer("3", "lead").sees(a, b).write("register", "z", { r: "ns/k#0" });
      alice.write("register", "e");
      const view = derive(h);
      expect(outcomes(view)).toStrictEqual({ "ns/k#0": null });
      expect(disputeId(view.value)).toBe("ns/k#0");
      expect(json(view.value)).toMatchObject({
        contenders: [{ value: "e" }, { value: "z" }],
      });
    });

    it("keeps a write that joins a head concurrent with it, even one writer's", () => {
      const h = history();
      const alice = h.writer("1", "alice");
      const a = alice.write("register", "a");
      alice.write("register", "b", { j: [a] });
      const view = derive(h);
      expect(disputeId(view.value)).toBe("ns/k#0");
      expect(contenders(view, "ns/k#0")).toStrictEqual([
        ["alice", "a"],
        ["alice", "b"],
      ]);
    });

    it("escalates a register holding objects as one value, not leaf by leaf", () => {
      const h = history();
      h.writer("1", "alice").write("register", { x: 1 });
      h.writer("2", "bob").write("register", { x: 2 });
      const view = derive(h);
      expect(outcomes(view)).toStrictEqual({ "ns/k#0": null });
    });
  });

  describe("a kind mismatch", () => {
    /** alice's set and bob's register, written apart, then lead's resolution to the register "z". */
    function resolvedMismatch() {
      const h = history();
      const alice = h.writer("1", "alice");
      const lead = h.writer("3", "lead");
      const a = alice.write("set", ["x"]);
      const b = h.writer("2", "bob").write("register", "y");
      const r1 = lead.sees(a, b).write("register", "z", { r: "ns/k#0:kind" });
      return { h, alice, lead, a, b, r1 };
    }

    it("escalates writes of two kinds, one contender per kind", () => {
      const h = history();
      const a = h.writer("1", "alice").write("set", ["x"]);
      const b = h.writer("2", "bob").write("register", "y");
      const view = derive(h);
      expect(view.escalations).toStrictEqual([
        {
          id: "ns/k#0:kind",
          subjectId: "s",
          namespace: "ns",
          key: "k",
          reason: "kind-mismatch",
          contenders: [
            { agentId: "alice", value: ["x"], at: a.data.t },
            { agentId: "bob", value: "y", at: b.data.t },
          ],
          raisedAt: b.data.t,
        },
      ]);
      expect(disputeId(view.value)).toBe("ns/k#0:kind");
      expect(view.kind).toBeUndefined();
    });

    it("escalates a register written before a map", () => {
      const h = history();
      h.writer("1", "alice").write("register", "a");
      h.writer("2", "bob").write("map", { x: 1 });
      const view = derive(h);
      expect(outcomes(view)).toStrictEqual({ "ns/k#0:kind": null });
      expect(disputeId(view.value)).toBe("ns/k#0:kind");
    });

    it("shows what each kind's writes add up to, credited to its first writer", () => {
      const h = history();
      const text = h.writer("1", "alice");
      text.write("text", "a");
      text.write("text", "b");
      const counter = h.writer("2", "bob");
      counter.write("counter", 2);
      counter.write("counter", 3);
      const register = h.writer("3", "carol");
      register.write("register", { a: 1 });
      register.write("register", { b: 2 });
      const map = h.writer("4", "dave");
      map.write("map", { x: { p: 1 } });
      map.write("map", { x: { q: 2 } });
      map.write("map", { w: { a: 1 } });
      map.write("map", { w: "s" });
      const set = h.writer("5", "erin");
      set.write("set", ["s"]);
      set.write("set", ["s", "t"]);
      const view = derive(h);
      expect(contenders(view, "ns/k#0:kind")).toStrictEqual([
        ["alice", "a\nb"],
        ["bob", 5],
        ["carol", { b: 2 }],
        ["dave", { x: { p: 1, q: 2 }, w: "s" }],
        ["erin", ["s", "t"]],
      ]);
    });

    it("counts a write of another kind on top of a resolution as the next generation's mismatch", () => {
      const { h, alice, lead, r1 } = resolvedMismatch();
      const c = alice.sees(r1).write("set", ["c"], { g: 1 });
      const open = derive(h);
      expect(outcomes(open)).toStrictEqual({ "ns/k#0:kind": "z", "ns/k#1:kind": null });
      expect(contenders(open, "ns/k#1:kind")).toStrictEqual([
        ["lead", "z"],
        ["alice", ["c"]],
      ]);
      expect(disputeId(open.value)).toBe("ns/k#1:kind");
      expect(open.generation).toBe(1);

      lead.sees(c).write("register", "w", { g: 1, r: "ns/k#1:kind" });
      const resolved = derive(h);
      expect(outcomes(resolved)).toStrictEqual({ "ns/k#0:kind": "z", "ns/k#1:kind": "w" });
      expect(resolved.value).toBe("w");
      expect(resolved.kind).toBe("register");
      expect(resolved.generation).toBe(2);
    });

    it("stays open when a write of the other kind was concurrent with its resolution", () => {
      const { h, alice } = resolvedMismatch();
      alice.write("set", ["c"]);
      const view = derive(h);
      expect(outcomes(view)).toStrictEqual({ "ns/k#0:kind": null });
      expect(disputeId(view.value)).toBe("ns/k#0:kind");
    });

    it("names the oldest open mismatch when a reopened one and the next generation's are both open", () => {
      const { h, alice, lead } = resolvedMismatch();
      alice.write("set", ["x2"]);
      lead.write("set", ["c"], { g: 1 });
      const view = derive(h);
      expect(outcomes(view)).toStrictEqual({ "ns/k#0:kind": null, "ns/k#1:kind": null });
      expect(disputeId(view.value)).toBe("ns/k#0:kind");
    });

    it("names the earliest open generation's mismatch, whatever order the generations' writes sort in", () => {
      const { h, alice, lead, r1 } = resolvedMismatch();
      // Written before alice saw the resolution: the mismatch reopens, and is resolved again.
      const a2 = alice.write("set", ["x2"]);
      lead.sees(a2).write("register", "z", { g: 1, r: "ns/k#0:kind" });
      lead.write("set", ["e"], { g: 2 });
      // A generation-1 write that sorts after the generation-2 one (its writer's clock ran ahead).
      h.writer("4", "dave").sees(r1).elsewhere(10).write("set", ["d"], { g: 1 });
      const view = derive(h);
      expect(outcomes(view)).toStrictEqual({
        "ns/k#0:kind": "z",
        "ns/k#1:kind": null,
        "ns/k#2:kind": null,
      });
      expect(disputeId(view.value)).toBe("ns/k#1:kind");
    });

    it("names a dispute between two concurrent resolutions of different kinds after its members", () => {
      const { h, a, b, r1 } = resolvedMismatch();
      const r2 = h.writer("4", "chief").sees(a, b).write("set", ["z"], { r: "ns/k#0:kind" });
      const view = derive(h);
      const id = `ns/k#${r1.id},${r2.id}`;
      expect(disputeId(view.value)).toBe(id);
      expect(view.escalations.map((escalation) => escalation.id)).toStrictEqual([
        "ns/k#0:kind",
        id,
      ]);
      const escalation = view.escalations[1];
      expect(escalation).toMatchObject({ key: "k", reason: "kind-mismatch", raisedAt: r2.data.t });
      expect(contenders(view, id)).toStrictEqual([
        ["lead", "z"],
        ["chief", ["z"]],
      ]);
      expect(view.announcers.get(id)).toBe("4");
      expect(view.escalationPaths.get(id)).toBeUndefined();
      expect(view.escalationPaths.has(id)).toBe(true);
    });

    it("leaves a leaf resolution out of the next generation's kind mismatch", () => {
      const h = history();
      const alice = h.writer("1", "alice");
      const bob = h.writer("2", "bob");
      const a = alice.write("map", { x: 1 });
      const b = bob.write("map", { x: 2 });
      const r = h
        .writer("3", "lead")
        .sees(a, b)
        .write("map", { x: 3 }, { r: "ns/k.x#0", rp: ["x"] });
      alice.sees(r).write("register", "c", { g: 1 });
      bob.sees(r).write("set", ["d"], { g: 1 });
      const view = derive(h);
      expect(contenders(view, "ns/k#1:kind")).toStrictEqual([
        ["alice", "c"],
        ["bob", ["d"]],
      ]);
      expect(outcomes(view)).toMatchObject({ "ns/k.x#0": { x: 3 }, "ns/k#1:kind": null });
    });
  });

  describe("a map", () => {
    it("escalates each leaf written concurrently, and only that leaf", () => {
      const h = history();
      const a = h.writer("1", "alice").write("map", { y: "a", x: 1, w: true });
      const b = h.writer("2", "bob").write("map", { y: "b", x: 2 });
      const view = derive(h);
      expect(outcomes(view)).toStrictEqual({ "ns/k.x#0": null, "ns/k.y#0": null });
      expect(view.value).toMatchObject({ w: true });
      expect(disputeId((view.value as Record<string, unknown>).x)).toBe("ns/k.x#0");
      expect(disputeId((view.value as Record<string, unknown>).y)).toBe("ns/k.y#0");
      expect(view.escalationPaths).toStrictEqual(
        new Map([
          ["ns/k.y#0", ["y"]],
          ["ns/k.x#0", ["x"]],
        ]),
      );
      expect(view.disputedHeads).toStrictEqual(
        new Map([
          ['["x"]', [a.id, b.id]],
          ['["y"]', [a.id, b.id]],
        ]),
      );
      expect(view.escalations[0]?.key).toBe("k.x");
    });

    it("escalates a scalar against an object at one leaf, showing each side's value there", () => {
      const h = history();
      const a = h.writer("1", "alice").write("map", { a: { b: 1 } });
      const b = h.writer("2", "bob").write("map", { a: { b: { c: 2 } } });
      h.writer("3", "carol").write("map", { z: 5 });
      const view = derive(h);
      expect(outcomes(view)).toStrictEqual({ "ns/k.a.b#0:kind": null });
      expect(contenders(view, "ns/k.a.b#0:kind")).toStrictEqual([
        ["alice", 1],
        ["bob", { c: 2 }],
      ]);
      expect(json(view.value)).toStrictEqual({
        a: {
          b: {
            disputed: "ns/k.a.b#0:kind",
            contenders: [
              { agentId: "alice", value: 1, at: 1001 },
              { agentId: "bob", value: { c: 2 }, at: 1002 },
            ],
          },
        },
        z: 5,
      });
      expect(Object.keys(view.attribution as object)).toStrictEqual(["z", "a.b"]);
      expect(view.escalationPaths.get("ns/k.a.b#0:kind")).toStrictEqual(["a", "b"]);
      expect(view.disputedHeads).toStrictEqual(new Map([['["a","b"]', [a.id, b.id]]]));
      expect(view.escalations[0]?.key).toBe("k.a.b");
    });

    it("attributes a nested leaf's dispute under its dotted path", () => {
      const h = history();
      h.writer("1", "alice").write("map", { a: { b: 1 } });
      h.writer("2", "bob").write("map", { a: { b: 2 } });
      const view = derive(h);
      expect(Object.keys(view.attribution as object)).toStrictEqual(["a.b"]);
      expect(disputeId((view.value as { a: Record<string, unknown> }).a.b)).toBe("ns/k.a.b#0");
    });

    it("escalates a scalar against an empty object at one leaf", () => {
      const h = history();
      h.writer("1", "alice").write("map", { x: 1 });
      h.writer("2", "bob").write("map", { x: {} });
      const view = derive(h);
      expect(outcomes(view)).toStrictEqual({ "ns/k.x#0:kind": null });
      expect(disputeId((view.value as Record<string, unknown>).x)).toBe("ns/k.x#0:kind");
    });

    it("names a leaf's own escalation when it is disputed both ways", () => {
      const h = history();
      h.writer("1", "alice").write("map", { x: 1 });
      h.writer("2", "bob").write("map", { x: 2 });
      h.writer("3", "carol").write("map", { x: { y: 3 } });
      const view = derive(h);
      expect(outcomes(view)).toStrictEqual({ "ns/k.x#0": null, "ns/k.x#0:kind": null });
      expect(disputeId((view.value as Record<string, unknown>).x)).toBe("ns/k.x#0:kind");
    });

    it("merges concurrent writes to different leaves, empty objects included", () => {
      const h = history();
      h.writer("1", "alice").write("map", { x: 1, n: { p: 1 } });
      h.writer("2", "bob").write("map", { y: {}, n: { q: { r: 2 }, m: {} } });
      h.writer("3", "carol").write("map", {});
      const view = derive(h);
      expect(view.value).toStrictEqual({ x: 1, y: {}, n: { p: 1, q: { r: 2 }, m: {} } });
      expect(view.escalations).toStrictEqual([]);
    });

    it("orders keys by path length, then by path, whatever order they were written in", () => {
      const h = history();
      h.writer("1", "alice").write("map", { y: 1, n: { b: 1, a: 2 } });
      h.writer("2", "bob").write("map", { x: 2 });
      const view = derive(h);
      expect(JSON.stringify(view.value)).toBe('{"x":2,"y":1,"n":{"a":2,"b":1}}');
      const quiet = history();
      quiet.writer("1", "alice").write("map", { y: 1, x: 2, n: { b: 1, a: 2 } });
      expect(JSON.stringify(derive(quiet).value)).toBe('{"x":2,"y":1,"n":{"a":2,"b":1}}');
    });

    it.each([
      ["a scalar replaces a scalar", { x: 1, w: 1 }, { x: 2 }, { x: 2, w: 1 }],
      [
        "an empty object replaces the leaves below it",
        { x: { y: 1 }, w: 1 },
        { x: {} },
        { x: {}, w: 1 },
      ],
      ["an empty map replaces every leaf", { x: { y: 1 }, w: 1 }, {}, {}],
      ["a nested write replaces a scalar", { x: 1 }, { x: { y: 2 } }, { x: { y: 2 } }],
      ["a scalar replaces a nested write", { x: { y: 2 } }, { x: 1 }, { x: 1 }],
      [
        "a deeper scalar replaces a shallower one",
        { x: { y: 1 } },
        { x: { y: { z: 2 } } },
        { x: { y: { z: 2 } } },
      ],
    ])("%s written after it", (_, first, second, expected) => {
      for (const peers of [
        ["1", "1"],
        ["1", "2"],
      ] as const) {
        const h = history();
        const earlier = h.writer(peers[0], "alice").write("map", first);
        h.writer(peers[1], "bob").sees(earlier).write("map", second);
        const view = derive(h);
        expect(view.value).toStrictEqual(expected);
        expect(view.escalations).toStrictEqual([]);
      }
    });

    it("drops every leaf a leaf resolution covers, at its path and below", () => {
      const h = history();
      const a = h.writer("1", "alice").write("map", { x: 1 });
      const b = h.writer("2", "bob").write("map", { x: { y: 2 } });
      const r = h
        .writer("3", "lead")
        .sees(a, b)
        .write("map", { x: { z: 3 } }, { r: "ns/k.x#0:kind", rp: ["x"] });
      const view = derive(h);
      expect(view.value).toStrictEqual({ x: { z: 3 } });
      expect(view.escalations[0]?.resolution).toStrictEqual({
        value: { x: { z: 3 } },
        by: "lead",
        at: r.data.t,
      });
      expect(view.generation).toBe(1);
    });

    it("resolves only the leaf a leaf resolution names", () => {
      const h = history();
      const a = h.writer("1", "alice").write("map", { x: 1, y: 1 });
      const b = h.writer("2", "bob").write("map", { x: 2, y: 2 });
      h.writer("3", "lead")
        .sees(a, b)
        .write("map", { y: 3 }, { r: "ns/k.y#0", rp: ["y"] });
      const view = derive(h);
      expect(outcomes(view)).toStrictEqual({ "ns/k.x#0": null, "ns/k.y#0": { y: 3 } });
      expect((view.value as Record<string, unknown>).y).toBe(3);
      expect(disputeId((view.value as Record<string, unknown>).x)).toBe("ns/k.x#0");
    });

    it("takes no leaf from a map write that holds no object (a malformed entry from another replica)", () => {
      const h = history();
      h.writer("1", "alice").write("map", { x: 1 });
      h.writer("2", "bob").write("map", "s");
      const view = derive(h);
      expect(view.value).toStrictEqual({ x: 1 });
      expect(view.escalations).toStrictEqual([]);
    });

    it("resolves its leaves' escalations with a resolution of the whole field", () => {
      const h = history();
      const a = h.writer("1", "alice").write("map", { x: 1 });
      const b = h.writer("2", "bob").write("map", { x: 2 });
      const c = h.writer("3", "carol").write("register", "c");
      const r = h.writer("4", "lead").sees(a, b, c).write("map", { x: 3 }, { r: "ns/k#0:kind" });
      const view = derive(h);
      expect(outcomes(view)).toStrictEqual({ "ns/k#0:kind": { x: 3 }, "ns/k.x#0": { x: 3 } });
      expect(view.escalations[1]?.resolution?.at).toBe(r.data.t);
      expect(view.value).toStrictEqual({ x: 3 });
    });

    it("keeps a leaf write that joins a head concurrent with it, even one writer's", () => {
      const h = history();
      const alice = h.writer("1", "alice");
      const a = alice.write("map", { x: 1 });
      alice.write("map", { x: 2 }, { j: [a] });
      const view = derive(h);
      expect(outcomes(view)).toStrictEqual({ "ns/k.x#0": null });
      expect(disputeId((view.value as Record<string, unknown>).x)).toBe("ns/k.x#0");
    });
  });

  describe("one writer's field", () => {
    it("is derived without consulting causal order (one pass)", () => {
      const fields: Array<(h: History) => void> = [
        (h) => {
          const alice = h.writer("1", "alice");
          alice.write("register", "a");
          alice.write("register", "b");
        },
        (h) => {
          const alice = h.writer("1", "alice");
          alice.write("map", { x: 1, n: { p: 1 } });
          alice.write("map", { x: 2, e: {} });
        },
        (h) => {
          h.writer("1", "alice").write("set", ["a"]);
          h.writer("2", "bob").write("set", ["b"]);
        },
      ];
      for (const build of fields) {
        const h = history();
        build(h);
        const view = materializeField({
          subjectId: "s",
          namespace: "ns",
          key: "k",
          entries: [...h.entries].sort(compareEntries),
          before: () => {
            throw new Error("a quiet field needs no causal order");
          },
        });
        expect(view.escalations).toStrictEqual([]);
      }
    });

    it("takes its generation from its writes", () => {
      for (const kind of ["register", "map", "set"] as const) {
        const h = history();
        h.writer("1", "alice").write(kind, kind === "map" ? { x: 1 } : ["a"], { g: 2 });
        expect(derive(h).generation).toBe(2);
      }
    });

    it("counts a resolution among one writer's writes", () => {
      const register = history();
      const alice = register.writer("1", "alice");
      alice.write("register", "a");
      alice.write("register", "b", { r: "ns/k#0" });
      expect(derive(register)).toMatchObject({ value: "b", generation: 1 });

      const map = history();
      const bob = map.writer("1", "bob");
      bob.write("map", { x: 1 });
      bob.write("map", { x: 2 }, { r: "ns/k.x#0", rp: ["x"] });
      expect(derive(map)).toMatchObject({ value: { x: 2 }, generation: 1 });
    });
  });

  describe("cost", () => {
    /** Derives the field, counting how often it asks the causal order. */
    function causalQueries(h: History): { view: FieldView; queries: number } {
      let queries = 0;
      const view = materializeField({
        subjectId: "s",
        namespace: "ns",
        key: "k",
        entries: [...h.entries].sort(compareEntries),
        before: (earlier, later) => {
          queries++;
          return h.before(earlier, later);
        },
      });
      return { view, queries };
    }

    it("asks the causal order a few times per write when each write saw the one before", () => {
      const h = history();
      const writers = [h.writer("1", "alice"), h.writer("2", "bob"), h.writer("3", "carol")];
      let previous: EntryRecord | undefined;
      for (let index = 0; index < 30; index++) {
        const writer = writers[index % writers.length] as Writer;
        if (previous) writer.sees(previous);
        previous = writer.write("register", `v${index}`);
      }
      const { view, queries } = causalQueries(h);
      expect(view).toMatchObject({ value: "v29", escalations: [] });
      expect(queries).toBeLessThanOrEqual(3 * 30);
    });

    it("compares each concurrent write with the others once", () => {
      const h = history();
      const count = 30;
      for (let index = 0; index < count; index++) {
        h.writer(String(index + 1), `agent-${index}`).write("register", `v${index}`);
      }
      const { view, queries } = causalQueries(h);
      expect(view.escalations[0]?.contenders).toHaveLength(count);
      // Heads: each write against those before it; the dispute: each write once more.
      expect(queries).toBeLessThanOrEqual((count * (count - 1)) / 2 + 2 * count);
    });
  });

  it("keeps one writer's empty objects and sorted keys in order", () => {
    const h = history();
    h.writer("1", "alice").write("map", { a: 1, b: {}, c: 3, d: { e: 4 } });
    const view = derive(h);
    expect(JSON.stringify(view.value)).toBe('{"a":1,"b":{},"c":3,"d":{"e":4}}');
    expect(view.attribution).toStrictEqual({
      a: { agentId: "alice", value: 1, at: 1001 },
      c: { agentId: "alice", value: 3, at: 1001 },
      "d.e": { agentId: "alice", value: 4, at: 1001 },
    });
    const general = history();
    general.writer("1", "alice").write("map", { a: 1, b: 2 });
    general.writer("2", "bob").write("map", { c: 3, d: 4 });
    expect(JSON.stringify(derive(general).value)).toBe('{"a":1,"b":2,"c":3,"d":4}');
  });

  it("derives no value, kind or escalation from no entries", () => {
    const view = derive(history());
    expect(view).toMatchObject({
      value: undefined,
      kind: undefined,
      escalations: [],
      generation: 0,
    });
  });

  it("adds a set write's lone element", () => {
    const h = history();
    h.writer("1", "alice").write("set", "a");
    h.writer("2", "bob").write("set", ["b", "a"]);
    const view = derive(h);
    expect(view.value).toStrictEqual(["a", "b"]);
    expect({ ...view }.attribution).toStrictEqual([
      { agentId: "alice", value: "a", at: 1001 },
      { agentId: "bob", value: "b", at: 1002 },
    ]);
  });
});

describe("extendView", () => {
  /** A field's entries and the view derived from them, and the view after one more write. */
  function extend(
    build: (h: History) => Writer,
    kind: StoredEntry["f"],
    value: JsonValue,
    options?: WriteOptions,
  ) {
    const h = history();
    const writer = build(h);
    const view = derive(h);
    const entry = writer.write(kind, value, options);
    const entries = [...h.entries].sort(compareEntries);
    return { view, extended: extendView(view, entry, entries), rederived: derive(h) };
  }

  it.each([
    ["a set, by its writer", "set", ["a"], ["b", "a"], "alice", ["a", "b"]],
    ["a set, by a lone element", "set", ["a"], "b", "alice", ["a", "b"]],
    ["a set, by another writer", "set", ["a"], ["c"], "bob", ["a", "c"]],
    ["a text", "text", "first", "second", "alice", "first\nsecond"],
    ["a counter", "counter", 2, 3, "alice", 5],
  ] satisfies Array<[string, StoredEntry["f"], JsonValue, JsonValue, "alice" | "bob", JsonValue]>)(
    "extends %s in place, as deriving it again would",
    (_, kind, first, second, next, expected) => {
      const { view, extended, rederived } = extend(
        (h) => {
          const alice = h.writer("1", "alice");
          alice.write(kind, first);
          return next === "alice" ? alice : h.writer("2", "bob");
        },
        kind,
        second,
      );
      expect(extended).toBe(view);
      expect(extended?.value).toStrictEqual(expected);
      expect(rederived.value).toStrictEqual(expected);
      expect(json(extended?.attribution)).toStrictEqual(json(rederived.attribution));
    },
  );

  it("extends a set two writers wrote", () => {
    const { view, extended } = extend(
      (h) => {
        h.writer("1", "alice").write("set", ["a"]);
        const bob = h.writer("2", "bob");
        bob.write("set", ["b"]);
        return bob;
      },
      "set",
      ["c"],
    );
    expect(extended).toBe(view);
    expect(extended?.value).toStrictEqual(["a", "b", "c"]);
  });

  it("adds another agent's increment to a counter's attribution", () => {
    const { extended } = extend(
      (h) => {
        h.writer("1", "alice").write("counter", 2);
        return h.writer("2", "bob");
      },
      "counter",
      3,
    );
    expect(extended?.attribution).toStrictEqual({ alice: 2, bob: 3 });
  });

  it.each([
    ["a write of another kind", "set", ["a"], "counter", 1, {}],
    ["a resolution", "set", ["a"], "set", ["b"], { r: "ns/k#0:kind" }],
    ["a write that joins heads", "set", ["a"], "set", ["b"], { j: [] }],
    ["a register", "register", "a", "register", "b", {}],
  ] satisfies Array<
    [string, StoredEntry["f"], JsonValue, StoredEntry["f"], JsonValue, WriteOptions]
  >)("declines %s", (_, kind, first, nextKind, next, options) => {
    const { extended } = extend(
      (h) => {
        const alice = h.writer("1", "alice");
        alice.write(kind, first);
        return alice;
      },
      nextKind,
      next,
      options,
    );
    expect(extended).toBeUndefined();
  });

  it("declines a text view with a resolved escalation", () => {
    const { view, extended } = extend(
      (h) => {
        const a = h.writer("1", "alice").write("register", "a");
        const b = h.writer("2", "bob").write("text", "b");
        const lead = h.writer("3", "lead").sees(a, b);
        lead.write("text", "z", { r: "ns/k#0:kind" });
        return lead;
      },
      "text",
      "more",
      { g: 1 },
    );
    expect(view).toMatchObject({ kind: "text", value: "z" });
    expect(extended).toBeUndefined();
  });

  it("declines a set view derived without its elements", () => {
    const h = history();
    const alice = h.writer("1", "alice");
    alice.write("set", ["a"]);
    const input = { subjectId: "s", namespace: "ns", key: "k", before: h.before, general: true };
    const view = materializeField({ ...input, entries: [...h.entries] });
    const entry = alice.write("set", ["b"]);
    expect(extendView(view, entry, [...h.entries])).toBeUndefined();
  });

  it.each([
    ["text", 5, []],
    ["text", "a", {}],
    ["counter", "5", {}],
    ["counter", 5, []],
    ["set", {}, []],
  ] satisfies Array<[StoredEntry["f"], unknown, unknown]>)(
    "declines a %s view holding %j, attributed %j",
    (kind, value, attribution) => {
      const h = history();
      const entry = h.writer("1", "alice").write(kind, kind === "set" ? ["a"] : 1);
      const view: FieldView = {
        value,
        kind,
        attribution,
        escalations: [],
        announcers: new Map(),
        disputedHeads: new Map(),
        generation: 0,
        escalationPaths: new Map(),
        elements: new Set(),
      };
      expect(extendView(view, entry, [entry])).toBeUndefined();
      expect(extendView(undefined, entry, [entry])).toBeUndefined();
    },
  );

  it("starts a text with no lines at its first line", () => {
    const h = history();
    const entry = h.writer("1", "alice").write("text", "line");
    const view: FieldView = {
      value: "",
      kind: "text",
      attribution: [],
      escalations: [],
      announcers: new Map(),
      disputedHeads: new Map(),
      generation: 0,
      escalationPaths: new Map(),
    };
    expect(extendView(view, entry, [entry])?.value).toBe("line");
  });
});
