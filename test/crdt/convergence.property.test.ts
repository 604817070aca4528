import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Disputed } from "../../src/crdt/disputed.js";
import { StateReplica } from "../../src/crdt/state-replica.js";

/**
 * Replicas write random values of every kind, exchange update bytes in random orders with
 * duplicates and delays (some replicas see nothing until the end), optionally resolve what they
 * see mid-run, then everything is delivered everywhere.
 */

type WriteOp =
  | { type: "set"; replica: number; key: number; elements: string[] }
  | { type: "text"; replica: number; key: number; text: string; extend: boolean }
  | { type: "counter"; replica: number; key: number; amount: number }
  | { type: "map"; replica: number; key: number; leaves: Array<[string, string, string]> }
  | { type: "register"; replica: number; key: number; value: string }
  | { type: "mixed"; replica: number; key: number; shape: "list" | "string" | "object" };
type Op =
  | WriteOp
  | { type: "deliver"; replica: number; picks: number[] }
  | { type: "resolve"; replica: number; pick: number };

const word = fc.constantFrom("a", "b", "c", "d");
const replicaIndex = fc.nat(15);
const keyIndex = fc.nat(2);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    type: fc.constant("set" as const),
    replica: replicaIndex,
    key: keyIndex,
    elements: fc.array(word, { maxLength: 3 }),
  }),
  fc.record({
    type: fc.constant("text" as const),
    replica: replicaIndex,
    key: keyIndex,
    text: fc.string({ minLength: 1, maxLength: 4 }).map((text) => text.replace(/\n/g, " ")),
    extend: fc.boolean(),
  }),
  fc.record({
    type: fc.constant("counter" as const),
    replica: replicaIndex,
    key: keyIndex,
    amount: fc.integer({ min: -5, max: 5 }),
  }),
  fc.record({
    type: fc.constant("map" as const),
    replica: replicaIndex,
    key: keyIndex,
    leaves: fc.array(fc.tuple(fc.constantFrom("x", "y"), fc.constantFrom("p", "q"), word), {
      minLength: 1,
      maxLength: 2,
    }),
  }),
  fc.record({
    type: fc.constant("register" as const),
    replica: replicaIndex,
    key: keyIndex,
    value: word,
  }),
  fc.record({
    type: fc.constant("mixed" as const),
    replica: replicaIndex,
    key: keyIndex,
    shape: fc.constantFrom("list" as const, "string" as const, "object" as const),
  }),
  fc.record({
    type: fc.constant("deliver" as const),
    replica: replicaIndex,
    picks: fc.array(fc.nat(), { maxLength: 8 }),
  }),
  fc.record({ type: fc.constant("resolve" as const), replica: replicaIndex, pick: fc.nat() }),
);

interface WriteRecord {
  op: WriteOp;
  agentId: string;
  at: number;
  value: unknown;
  /** The writer's version vector just before the write: what it had seen. */
  seen: Record<string, number>;
  peer: string;
  counter: number;
}

const textKeys = ["notes", "log", "findings"];

function runScenario(
  replicaCount: number,
  ops: Op[],
  shuffleSeed: number,
  withMidRunResolves: boolean,
) {
  let clock = 0;
  const now = () => ++clock;
  const replicas = Array.from(
    { length: replicaCount },
    (_, index) =>
      new StateReplica({
        subjectId: "subject",
        peerId: index + 1,
        now,
        schema: { counters: { k0: "counter", k1: "counter", k2: "counter" } },
      }),
  );
  const raised = replicas.map(() => new Map<string, number>());
  replicas.forEach((replica, index) => {
    replica.onEscalation(({ escalation }) => {
      const counts = raised[index] as Map<string, number>;
      counts.set(escalation.id, (counts.get(escalation.id) ?? 0) + 1);
    });
  });
  const messages: Array<{ from: number; bytes: Uint8Array }> = [];
  const writes: WriteRecord[] = [];
  let random = shuffleSeed >>> 0;
  const nextRandom = () => {
    random = (random * 1664525 + 1013904223) >>> 0;
    return random;
  };

  for (const step of ops) {
    const index = step.replica % replicaCount;
    const replica = replicas[index] as StateReplica;
    const agentId = `agent-${index}`;
    if (step.type === "deliver") {
      const picked = step.picks
        .map((pick) => messages[pick % Math.max(1, messages.length)])
        .filter((message) => message !== undefined && message.from !== index)
        .map((message) => (message as { bytes: Uint8Array }).bytes);
      replica.import(picked);
      continue;
    }
    if (step.type === "resolve") {
      if (!withMidRunResolves) continue;
      const open = replica.escalations().filter((escalation) => !escalation.resolution);
      const target = open[step.pick % Math.max(1, open.length)];
      if (!target) continue;
      const bytes = replica.resolve(target.id, target.contenders[0]?.value ?? null, "resolver");
      messages.push({ from: index, bytes });
      continue;
    }
    const value = valueWritten(step, replica);
    const seen = replica.version();
    const counter = replica.ownCounter();
    const bytes = replica.writeUpdate(
      agentId,
      step.type === "mixed" ? "mixed" : `${step.type}s`,
      keyOf(step),
      value,
    );
    if (bytes) messages.push({ from: index, bytes });
    writes.push({ op: step, agentId, at: clock, value, seen, peer: replica.peer, counter });
  }

  // Everything reaches everyone, shuffled, with duplicates.
  const deliverAll = () => {
    replicas.forEach((replica, index) => {
      const pool = messages
        .filter((message) => message.from !== index)
        .map((message) => message.bytes);
      const duplicates = pool.filter(() => nextRandom() % 4 === 0);
      const all = [...pool, ...duplicates];
      for (let position = all.length - 1; position > 0; position--) {
        const swap = nextRandom() % (position + 1);
        [all[position], all[swap]] = [all[swap] as Uint8Array, all[position] as Uint8Array];
      }
      // Half the replicas take them one by one (exercising pending imports), half as one batch.
      if (index % 2 === 0) for (const bytes of all) replica.import([bytes]);
      else replica.import(all);
    });
  };
  deliverAll();
  return { replicas, raised, writes, messages, deliverAll };
}

function keyOf(step: WriteOp): string {
  if (step.type === "text") return textKeys[step.key] ?? "notes";
  if (step.type === "mixed") return step.key === 0 ? "notes" : `item${step.key}`;
  return `k${step.key}`;
}

function valueWritten(step: WriteOp, replica: StateReplica): unknown {
  switch (step.type) {
    case "set":
      return step.elements;
    case "text": {
      const current = replica.get("texts", keyOf(step));
      return step.extend && typeof current === "string" ? `${current}\n${step.text}` : step.text;
    }
    case "counter":
      return step.amount;
    case "map": {
      const value: Record<string, Record<string, string>> = {};
      for (const [outer, inner, leaf] of step.leaves)
        value[outer] = { ...value[outer], [inner]: leaf };
      return value;
    }
    case "register":
      return step.value;
    case "mixed":
      return step.shape === "list" ? ["m"] : step.shape === "string" ? "m" : { m: "m" };
  }
}

function happenedBefore(earlier: WriteRecord, later: WriteRecord): boolean {
  if (earlier.peer === later.peer) return earlier.counter < later.counter;
  return (later.seen[earlier.peer] ?? 0) > earlier.counter;
}

const scenario = fc.record({
  replicaCount: fc.integer({ min: 2, max: 16 }),
  ops: fc.array(op, { minLength: 1, maxLength: 40 }),
  shuffleSeed: fc.integer(),
});

describe("StateReplica convergence (property)", () => {
  it("converges to identical JSON and escalations whatever the delivery order", () => {
    fc.assert(
      fc.property(scenario, fc.boolean(), ({ replicaCount, ops, shuffleSeed }, midRunResolves) => {
        const { replicas, raised } = runScenario(replicaCount, ops, shuffleSeed, midRunResolves);
        const [first, ...others] = replicas as [StateReplica, ...StateReplica[]];
        for (const other of others) {
          expect(other.toJSON()).toStrictEqual(first.toJSON());
          expect(other.escalations()).toStrictEqual(first.escalations());
        }
        // Raised exactly once per replica, and every replica raised exactly the final set.
        const finalIds = first
          .escalations()
          .map((escalation) => escalation.id)
          .sort();
        // Ids name the field and the generation, never the order writes happened to arrive in.
        for (const id of finalIds) expect(id).toMatch(/^[a-z]+\/[\w.]+#\d+(:kind)?$/);
        for (const counts of raised) {
          expect([...counts.keys()].sort()).toEqual(finalIds);
          for (const count of counts.values()) expect(count).toBe(1);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("loses no write to a mergeable field and attributes every surviving element", () => {
    fc.assert(
      fc.property(scenario, ({ replicaCount, ops, shuffleSeed }) => {
        const { replicas, writes } = runScenario(replicaCount, ops, shuffleSeed, false);
        const replica = replicas[0] as StateReplica;
        for (const write of writes) {
          const { op: step } = write;
          const key = keyOf(step);
          if (step.type === "set") {
            const value = replica.get("sets", key) as unknown[];
            for (const element of step.elements) expect(value).toContain(element);
          }
          if (step.type === "text") {
            const value = replica.get("texts", key) as string;
            const added = step.extend ? step.text : String(write.value);
            expect(value).toContain(added);
          }
          if (step.type === "map") {
            const value = replica.get("maps", key) as Record<string, Record<string, unknown>>;
            for (const [outer, inner] of step.leaves) expect(value[outer]).toHaveProperty(inner);
          }
        }
        for (const key of ["k0", "k1", "k2"]) {
          const increments = writes.filter(
            (write) => write.op.type === "counter" && keyOf(write.op) === key,
          );
          const total = increments.reduce((sum, write) => sum + Number(write.value), 0);
          if (increments.length > 0) expect(replica.get("counters", key)).toBe(total);
          const perAgent = replica.attribution("counters", key) as
            | Record<string, number>
            | undefined;
          for (const write of increments) expect(perAgent).toHaveProperty(write.agentId);
        }
        // Attribution: every element/segment/leaf/value is credited to an agent that wrote it.
        const wrote = (
          agentId: string,
          type: WriteOp["type"],
          key: string,
          check: (write: WriteRecord) => boolean,
        ) =>
          writes.some(
            (write) =>
              write.agentId === agentId &&
              write.op.type === type &&
              keyOf(write.op) === key &&
              check(write),
          );
        for (const key of ["k0", "k1", "k2"]) {
          const setCredits = (replica.attribution("sets", key) ?? []) as Array<{
            agentId: string;
            value: string;
          }>;
          expect(setCredits.map((credit) => credit.value)).toEqual(replica.get("sets", key) ?? []);
          for (const credit of setCredits) {
            expect(
              wrote(credit.agentId, "set", key, (write) =>
                (write.value as string[]).includes(credit.value),
              ),
            ).toBe(true);
          }
          const register = replica.get("registers", key);
          if (register !== undefined && !(register instanceof Disputed)) {
            const credit = replica.attribution("registers", key) as {
              agentId: string;
              value: string;
            };
            expect(credit.value).toBe(register);
            expect(
              wrote(credit.agentId, "register", key, (write) => write.value === register),
            ).toBe(true);
          }
        }
        for (const key of textKeys) {
          const segments = (replica.attribution("texts", key) ?? []) as Array<{
            agentId: string;
            text: string;
          }>;
          expect(segments.map((segment) => segment.text).join("\n")).toBe(
            replica.get("texts", key) ?? "",
          );
          for (const segment of segments) {
            expect(
              wrote(segment.agentId, "text", key, (write) =>
                String(write.value).endsWith(segment.text),
              ),
            ).toBe(true);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it("escalates every concurrent divergent register write exactly once, and kind mismatches", () => {
    fc.assert(
      fc.property(scenario, ({ replicaCount, ops, shuffleSeed }) => {
        const { replicas, writes } = runScenario(replicaCount, ops, shuffleSeed, false);
        const escalations = (replicas[0] as StateReplica).escalations();
        const registerWrites = writes.filter((write) => write.op.type === "register");
        for (const write of registerWrites) {
          const key = keyOf(write.op);
          const divergent = registerWrites.some(
            (other) =>
              other !== write &&
              keyOf(other.op) === key &&
              other.value !== write.value &&
              !happenedBefore(other, write) &&
              !happenedBefore(write, other),
          );
          const appearances = escalations.filter(
            (escalation) =>
              escalation.namespace === "registers" &&
              escalation.key === key &&
              escalation.contenders.some(
                (contender) => contender.agentId === write.agentId && contender.at === write.at,
              ),
          );
          if (divergent) expect(appearances).toHaveLength(1);
          expect(appearances.length).toBeLessThanOrEqual(1);
        }
        for (const key of ["notes", "item1", "item2"]) {
          const shapes = new Set(
            writes
              .filter((write) => write.op.type === "mixed" && keyOf(write.op) === key)
              .map((write) => (write.op as { shape: string }).shape),
          );
          const mismatch = escalations.some(
            (escalation) =>
              escalation.namespace === "mixed" &&
              escalation.key === key &&
              escalation.reason === "kind-mismatch",
          );
          expect(mismatch).toBe(shapes.size > 1);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("resolving every escalation leaves no dispute, identically everywhere", () => {
    // Runs that had something to resolve: a property that never met an escalation proves nothing.
    let runsWithEscalations = 0;
    fc.assert(
      fc.property(scenario, ({ replicaCount, ops, shuffleSeed }) => {
        const { replicas, messages, deliverAll } = runScenario(
          replicaCount,
          ops,
          shuffleSeed,
          true,
        );
        const resolver = replicas[0] as StateReplica;
        if (resolver.escalations().some((escalation) => !escalation.resolution)) {
          runsWithEscalations += 1;
        }
        for (let round = 0; round < 50; round++) {
          const open = resolver.escalations().find((escalation) => !escalation.resolution);
          if (!open) break;
          messages.push({
            from: 0,
            bytes: resolver.resolve(open.id, open.contenders[0]?.value ?? null, "resolver"),
          });
        }
        deliverAll();
        const json = resolver.toJSON();
        expect(JSON.stringify(json)).not.toContain('"disputed"');
        for (const replica of replicas) {
          expect(replica.toJSON()).toStrictEqual(json);
          expect(
            replica.escalations().every((escalation) => escalation.resolution !== undefined),
          ).toBe(true);
        }
      }),
      // About one generated run in seven meets an escalation: enough runs that a few dozen do.
      { numRuns: 150 },
    );
    expect(runsWithEscalations).toBeGreaterThanOrEqual(5);
  });
});
