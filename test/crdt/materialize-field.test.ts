import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { materializeField } from "../../src/crdt/materialize-field.js";
import { compareEntries, type EntryRecord, type StoredEntry } from "../../src/crdt/state-entry.js";

/**
 * Fields that cannot hold a dispute take a one-pass path (`quietKind`, `quietMap`); every other
 * field takes the general one. Both must give the same view, key order included.
 */

const leafValue = fc.constantFrom<unknown>("a", "b", 1, {});
const mapValue = fc.dictionary(
  fc.constantFrom("x", "y", "__proto__"),
  fc.oneof(leafValue, fc.dictionary(fc.constantFrom("p", "q"), leafValue, { maxKeys: 2 })),
  { maxKeys: 2 },
);
const write = fc.record({
  peer: fc.integer({ min: 1, max: 3 }),
  kind: fc.constantFrom<StoredEntry["f"]>("map", "map", "register", "set", "text", "counter"),
  map: mapValue,
  scalar: fc.constantFrom<unknown>("a", "b", ["a"], 2),
  agent: fc.constantFrom("alice", "bob"),
});

type Write = typeof write extends fc.Arbitrary<infer T> ? T : never;

function entriesOf(writes: Write[]) {
  const counters = new Map<number, number>();
  const entries: EntryRecord[] = writes.map((item, index) => {
    const counter = counters.get(item.peer) ?? 0;
    counters.set(item.peer, counter + 1);
    const value =
      item.kind === "map"
        ? item.map
        : item.kind === "set"
          ? [String(item.scalar)]
          : item.kind === "text"
            ? String(item.scalar)
            : item.kind === "counter"
              ? 1
              : item.scalar;
    const data = {
      n: "ns",
      k: "field",
      f: item.kind,
      a: item.agent,
      v: value,
      t: 1000 + index,
      g: 0,
      s: counter + 1,
    } as StoredEntry;
    return { id: `${item.peer}:${counter}`, peer: String(item.peer), counter, data };
  });
  return entries.sort(compareEntries);
}

describe("materializeField", () => {
  it("the one-pass paths give the same view as the general one", () => {
    fc.assert(
      fc.property(
        fc.array(write, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        // Most runs keep one kind, so the one-pass paths are taken (or just missed) often.
        fc.constantFrom<StoredEntry["f"] | "mixed">("map", "map", "register", "set", "mixed"),
        (writes, onePeer, kind) => {
          const entries = entriesOf(
            writes.map((item) => ({
              ...item,
              peer: onePeer ? 1 : item.peer,
              kind: kind === "mixed" ? item.kind : kind,
            })),
          );
          // One peer's writes follow each other; different peers' writes are concurrent.
          const before = (earlier: EntryRecord, later: EntryRecord) =>
            earlier.peer === later.peer && earlier.counter < later.counter;
          const input = { subjectId: "s", namespace: "ns", key: "field", entries, before };
          const fast = materializeField(input);
          const general = materializeField({ ...input, general: true });
          expect(JSON.stringify(fast.value)).toBe(JSON.stringify(general.value));
          expect(JSON.stringify(fast.attribution)).toBe(JSON.stringify(general.attribution));
          expect(fast.escalations).toStrictEqual(general.escalations);
          expect(fast.kind).toBe(general.kind);
          expect(fast.generation).toBe(general.generation);
          expect([...fast.disputedHeads]).toStrictEqual([...general.disputedHeads]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("lists a field's escalations in id order, whatever order its leaves were written in", () => {
    // Two peers write the same two map leaves concurrently, each leaf with different values.
    const entries = entriesOf([
      { peer: 1, kind: "map", map: { z: "a", y: "a" }, scalar: "a", agent: "alice" },
      { peer: 2, kind: "map", map: { z: "b", y: "b" }, scalar: "a", agent: "bob" },
    ]);
    const before = (earlier: EntryRecord, later: EntryRecord) =>
      earlier.peer === later.peer && earlier.counter < later.counter;
    for (const general of [false, true]) {
      const view = materializeField({
        subjectId: "s",
        namespace: "ns",
        key: "field",
        entries,
        before,
        general,
      });
      const ids = view.escalations.map((escalation) => escalation.id);
      expect(ids).toEqual(["ns/field.y#0", "ns/field.z#0"]);
    }
  });
});
