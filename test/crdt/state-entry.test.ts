import { LoroDoc } from "loro-crdt";
import { describe, expect, it } from "vitest";
import {
  compareEntries,
  comparePeers,
  type EntryRecord,
  encodeEntry,
  parseEntryAt,
  type StoredEntry,
} from "../../src/crdt/state-entry.js";
import { StateReplica } from "../../src/crdt/state-replica.js";

/**
 * Entries arrive from other processes: each one is validated as it is read, and a row that is not
 * an entry is ignored rather than trusted or fatal.
 */

const base: StoredEntry = {
  n: "plan",
  k: "owner",
  f: "register",
  a: "alice",
  v: "x",
  t: 5,
  g: 0,
  s: 1,
};
/** A format 2 row with every required position. */
const row = ["plan", "owner", "register", "alice", "x", 5, 0, 1];

/** `row` with the item at `index` replaced. */
function rowWith(index: number, item: unknown): unknown[] {
  const copy: unknown[] = [...row];
  copy[index] = item;
  return copy;
}

describe("encodeEntry", () => {
  it("stores only the required positions when no optional property is set", () => {
    expect(JSON.parse(encodeEntry(base))).toStrictEqual(row);
  });

  it("stores optional properties up to the last one set, null for those absent before it", () => {
    expect(JSON.parse(encodeEntry({ ...base, r: "plan/owner#0" }))).toStrictEqual([
      ...row,
      null,
      "plan/owner#0",
    ]);
  });
});

describe("parseEntryAt", () => {
  it.each<[string, StoredEntry]>([
    ["a plain entry", base],
    ["a null value", { ...base, v: null }],
    ["a joining write", { ...base, j: ["1:0", "2:3"] }],
    ["a resolution", { ...base, r: "plan/owner#0", rv: { "1": 4 } }],
    ["a leaf resolution", { ...base, f: "map", r: "plan/owner#0", rp: ["db", "host"], rv: {} }],
  ])("reads back %s exactly as it was encoded", (_, entry) => {
    expect(parseEntryAt("7", 3, encodeEntry(entry))).toStrictEqual({
      id: "7:3",
      peer: "7",
      counter: 3,
      data: entry,
    });
  });

  it("reads format 1 (an object, as a JSON string or stored as is)", () => {
    expect(parseEntryAt("7", 3, JSON.stringify(base))?.data).toStrictEqual(base);
    expect(parseEntryAt("7", 3, { ...base })?.data).toStrictEqual(base);
  });

  it.each<[string, unknown]>([
    ["text that is not JSON", "[not json"],
    ["a JSON number", "42"],
    ["too few positions", JSON.stringify(row.slice(0, 7))],
    ["too many positions", JSON.stringify([...row, null, null, null, null, "extra"])],
    ["a namespace that is not a string", JSON.stringify(rowWith(0, 1))],
    ["a key that is not a string", JSON.stringify(rowWith(1, null))],
    ["a kind that is not a string", JSON.stringify(rowWith(2, 3))],
    ["an unknown kind", JSON.stringify(rowWith(2, "list"))],
    ["an agent that is not a string", JSON.stringify(rowWith(3, ["alice"]))],
    ["a time that is not a number", JSON.stringify(rowWith(5, "5"))],
    ["a generation that is not a number", JSON.stringify(rowWith(6, null))],
    ["an order key that is not a number", JSON.stringify(rowWith(7, "1"))],
    ["joined heads that are not an array", JSON.stringify([...row, "1:0"])],
    ["joined heads that are not all strings", JSON.stringify([...row, ["1:0", 2]])],
    ["joined heads that are numbers", JSON.stringify([...row, [2]])],
    ["a resolved escalation that is not a string", JSON.stringify([...row, null, 4])],
    ["a leaf path that is not all strings", JSON.stringify([...row, null, "e", ["db", 1]])],
    ["a version that is not an object", JSON.stringify([...row, null, "e", null, [1, 2]])],
    ["an object holding a value that is not JSON", { ...base, v: Number.NaN }],
  ])("refuses %s", (_, stored) => {
    expect(parseEntryAt("7", 3, stored)).toBeUndefined();
  });

  // No replica writes these rows; a store could still hold them. JSON text is not JSON enough:
  // JSON.parse reads `1e999` as Infinity, and an object may lack its value.
  it.each([
    ["a number that overflows to Infinity", JSON.stringify(row).replace('"x"', "1e999")],
    ["a format 1 object without a value", JSON.stringify({ ...base, v: undefined })],
  ])("refuses JSON text whose value is not a JSON value: %s", (_, stored) => {
    expect(parseEntryAt("7", 3, stored)).toBeUndefined();
  });
});

describe("a replica importing rows another process wrote", () => {
  it("takes the entries and ignores the rows that are not entries, without failing", () => {
    const foreign = new LoroDoc();
    foreign.setPeerId(9);
    const list = foreign.getList("entries-9");
    list.push(JSON.stringify(["plan", "tags", "set", "alice", ["auth"], 5, 0, 1]));
    list.push("[not json");
    list.push(JSON.stringify(rowWith(2, "list")));
    list.push(JSON.stringify(["plan", "tags", "set", "bob", ["crypto"], 6, 0, 2]));
    foreign.commit();
    const replica = new StateReplica({ subjectId: "s", peerId: 1 });
    replica.import([foreign.export({ mode: "update" })]);
    expect(replica.toJSON()).toStrictEqual({ plan: { tags: ["auth", "crypto"] } });
    expect(replica.attribution("plan", "tags")).toStrictEqual([
      { agentId: "alice", value: "auth", at: 5 },
      { agentId: "bob", value: "crypto", at: 6 },
    ]);
  });
});

function record(peer: string, counter: number, order: number): EntryRecord {
  return { id: `${peer}:${counter}`, peer, counter, data: { ...base, s: order } };
}

describe("compareEntries", () => {
  it("orders by order key, then peer numerically, then counter", () => {
    const entries = [
      record("10", 0, 2),
      record("9", 4, 2),
      record("9", 1, 2),
      record("10", 7, 1),
      record("9", 2, 3),
    ];
    expect(
      entries.sort(compareEntries).map((entry) => `${entry.data.s}@${entry.id}`),
    ).toStrictEqual(["1@10:7", "2@9:1", "2@9:4", "2@10:0", "3@9:2"]);
  });

  it("finds an entry equal only to itself", () => {
    expect(compareEntries(record("9", 1, 2), record("9", 1, 2))).toBe(0);
  });
});

describe("comparePeers", () => {
  it.each([
    ["9", "10", -1],
    ["10", "9", 1],
    ["12", "13", -1],
    ["13", "12", 1],
    ["18446744073709551615", "18446744073709551615", 0],
  ] as const)("compares %s with %s as numbers", (left, right, sign) => {
    expect(Math.sign(comparePeers(left, right))).toBe(sign);
  });
});
