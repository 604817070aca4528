import { canonicalJson, isPlainObject } from "../crdt/json-value.js";
import { StateReplica } from "../crdt/state-replica.js";
import type { MergeBenchRow } from "./merge-bench.js";
import { countLost, deepMerge, flatten, nest, valueAt, wholeValue } from "./merge-loss.js";
import { interleave, slot, type Workload } from "./merge-workloads.js";

// The three strategies of the merge benchmark, each over one workload: last-writer-wins replicas,
// one versioned store with a "model" settling conflicts, and one StateReplica per agent.

/** One strategy's row, and its cost per write (wall and CPU milliseconds). */
export interface StrategyRun {
  row: MergeBenchRow;
  cost: number;
  cpuCost: number;
}

/** An lww agent's local copy: slot to whole value. */
type Values = Map<string, unknown>;

/** Whole values, every replica applying the whole log: the latest timestamp per key wins. */
export function runLww(workload: Workload, now: () => number, cpu: () => number): StrategyRun {
  const writes = interleave(workload);
  const started = now();
  const cpuStarted = cpu();
  const locals = new Map<string, Values>(workload.agents.map((agent) => [agent, new Map()]));
  const log: string[] = [];
  writes.forEach((write, timestamp) => {
    const local = locals.get(write.agent) as Values;
    const value = wholeValue(local.get(slot(write)), write);
    local.set(slot(write), value);
    log.push(JSON.stringify({ slot: slot(write), value, timestamp, agent: write.agent }));
  });
  // Every replica applies the whole log: the latest timestamp per key wins.
  let slowest = 0;
  let final: Map<string, { value: unknown; timestamp: number }> = new Map();
  for (const _agent of workload.agents) {
    const replicaStarted = now();
    const replica = new Map<string, { value: unknown; timestamp: number }>();
    for (const line of log) {
      const message = JSON.parse(line) as { slot: string; value: unknown; timestamp: number };
      const current = replica.get(message.slot);
      if (!current || current.timestamp < message.timestamp) replica.set(message.slot, message);
    }
    slowest = Math.max(slowest, now() - replicaStarted);
    final = replica;
  }
  const total = now() - started;
  const cpuTotal = cpu() - cpuStarted;
  const lost = countLost(workload, (write) => final.get(slot(write))?.value, new Set());
  return {
    row: {
      workload: workload.name,
      strategy: "lww",
      verdict: lost > 0 ? "silent loss" : "ok",
      outcome: lost > 0 ? "corrupted" : "auto_merged",
      writes_lost: lost,
      escalations: 0,
      model_calls: 0,
      latency_ms: slowest,
      converged: true,
    },
    cost: total / writes.length,
    cpuCost: cpuTotal / writes.length,
  };
}

/** The "model": a deterministic three-way merge; scalars it cannot merge keep the caller's value. */
function resolveConflict(base: unknown, theirs: unknown, mine: unknown): unknown {
  if (typeof theirs === "number" && typeof mine === "number" && typeof base === "number") {
    return theirs + (mine - base);
  }
  if (typeof theirs === "number" && typeof mine === "number" && base === undefined)
    return theirs + mine;
  if (Array.isArray(theirs) && Array.isArray(mine)) {
    // One pass with a set of what is present: a fair resolver is O(n), not O(n^2), per call.
    const merged = [...theirs];
    const present = new Set(theirs.map(canonicalJson));
    for (const element of mine) {
      const canonical = canonicalJson(element);
      if (present.has(canonical)) continue;
      present.add(canonical);
      merged.push(element);
    }
    return merged;
  }
  if (
    typeof theirs === "string" &&
    typeof mine === "string" &&
    (base === undefined || typeof base === "string")
  ) {
    const lines = theirs.split("\n");
    const present = new Set(lines);
    for (const line of mine.split("\n")) if (!present.has(line)) lines.push(line);
    return lines.join("\n");
  }
  if (isPlainObject(theirs) && isPlainObject(mine)) {
    // Three-way: only the leaves the caller changed since it read are applied.
    let merged: unknown = theirs;
    for (const [name, leaf] of flatten(mine)) {
      if (canonicalJson(valueAt(base, name)) !== canonicalJson(leaf)) {
        merged = deepMerge(merged, nest(name, leaf));
      }
    }
    return merged;
  }
  return mine;
}

/** One store with a version per key; a stale write is a conflict one "model call" settles. */
export function runTransactional(
  workload: Workload,
  now: () => number,
  cpu: () => number,
): StrategyRun {
  const writes = interleave(workload);
  const store = new Map<string, { value: unknown; version: number }>();
  const locals = new Map<string, Map<string, { value: unknown; version: number }>>(
    workload.agents.map((agent) => [agent, new Map()]),
  );
  const modelSaw = new Set<string>();
  let modelCalls = 0;
  let resolving = 0;
  const started = now();
  const cpuStarted = cpu();
  for (const write of writes) {
    const local = locals.get(write.agent) as Map<string, { value: unknown; version: number }>;
    const key = slot(write);
    const seen = local.get(key);
    const mine = wholeValue(seen?.value, write);
    const current = store.get(key);
    if ((current?.version ?? 0) === (seen?.version ?? 0)) {
      const next = { value: mine, version: (current?.version ?? 0) + 1 };
      store.set(key, next);
      local.set(key, next);
      continue;
    }
    // Optimistic check failed: one model call merges (or picks) and the agent re-reads.
    const callStarted = now();
    const merged = resolveConflict(seen?.value, current?.value, mine);
    resolving += now() - callStarted;
    modelCalls++;
    modelSaw.add(key);
    const next = { value: merged, version: (current?.version ?? 0) + 1 };
    store.set(key, next);
    local.set(key, next);
  }
  const total = now() - started;
  const cpuTotal = cpu() - cpuStarted;
  // A value the model chose against was seen by it: surfaced, not silently lost. (Mergeable
  // values it merged are checked like any other.)
  const kindsPerSlot = new Map<string, Set<string>>();
  for (const write of writes)
    kindsPerSlot.set(slot(write), (kindsPerSlot.get(slot(write)) ?? new Set()).add(write.kind));
  const surfaced = new Set(
    writes.filter(
      (write) =>
        modelSaw.has(slot(write)) &&
        (write.kind === "register" || (kindsPerSlot.get(slot(write))?.size ?? 0) > 1),
    ),
  );
  const lost = countLost(workload, (write) => store.get(slot(write))?.value, surfaced);
  return {
    row: {
      workload: workload.name,
      strategy: "transactional",
      verdict: lost > 0 ? "silent loss" : "ok",
      outcome: lost > 0 ? "corrupted" : modelCalls > 0 ? "resolved" : "auto_merged",
      writes_lost: lost,
      escalations: 0,
      model_calls: modelCalls,
      latency_ms: resolving,
      converged: true,
    },
    cost: total / writes.length,
    cpuCost: cpuTotal / writes.length,
  };
}

/** One StateReplica per agent, written without seeing the others, then merged. */
export function runCrdt(
  workload: Workload,
  now: () => number,
  cpu: () => number,
): StrategyRun & { mergeTimes: number[]; mergeCpu: number[] } {
  let clock = 0;
  const started = now();
  const cpuStarted = cpu();
  const replicaFor = (index: number) =>
    new StateReplica({
      subjectId: workload.name,
      peerId: index + 1,
      schema: workload.schema,
      now: () => ++clock,
    });
  const replicas: Array<StateReplica | undefined> = workload.agents.map((_agent, index) =>
    replicaFor(index),
  );
  // Each agent writes to its own replica without seeing the others (the worst case for merging).
  workload.scripts.forEach((script, index) => {
    const replica = replicas[index] as StateReplica;
    for (const write of script) {
      const value = write.kind === "set" ? [write.value] : write.value;
      replica.write(write.agent, write.namespace, write.key, value);
    }
  });
  const updates = replicas.map((replica) => replica?.exportOwn(0, replica.ownCounter()));
  // Every replica imports the others' updates; each is timed alone (they run in parallel, one
  // process each). One process holds one replica: so does this one, as far as it can. Each
  // writer's replica is released once its update is exported, and rebuilt from that update just
  // before its merge (not timed); a merged replica is released at once. Holding 256 replicas and
  // their merged states in one heap made each later merge pay for the others' garbage.
  // Timed per replica: one batch import of every other agent's update (as a replica catching up
  // on the store does) and deriving the whole state as JSON, the form compared for convergence.
  for (let index = 1; index < replicas.length; index++) {
    replicas[index]?.doc.free();
    replicas[index] = undefined;
  }
  const first = replicas[0] as StateReplica;
  const { mergeTimes, mergeCpu, converged } = timeMerges(updates, first, replicaFor, now, cpu);
  const total = now() - started;
  const cpuTotal = cpu() - cpuStarted;
  const escalations = first.escalations().length;
  const lost = countLost(workload, (write) => first.get(write.namespace, write.key), new Set());
  const writeCount = workload.scripts.flat().length;
  return {
    row: {
      workload: workload.name,
      strategy: "crdt",
      verdict: !converged ? "diverged" : lost > 0 ? "silent loss" : "ok",
      outcome: lost > 0 ? "corrupted" : escalations > 0 ? "escalated" : "auto_merged",
      writes_lost: lost,
      escalations,
      model_calls: 0,
      latency_ms: Math.max(0, ...mergeTimes),
      converged,
    },
    cost: total / writeCount,
    cpuCost: cpuTotal / writeCount,
    mergeTimes,
    mergeCpu,
  };
}

/**
 * Every replica imports the others' updates, each timed alone (they run in parallel, one process
 * each): one batch import (as a replica catching up on the store does) and the whole state as
 * JSON, the form compared for convergence. Replica 0 is `first`; the others are rebuilt from their
 * own update just before their merge (not timed) and released at once.
 */
function timeMerges(
  updates: ReadonlyArray<Uint8Array | undefined>,
  first: StateReplica,
  replicaFor: (index: number) => StateReplica,
  now: () => number,
  cpu: () => number,
): { mergeTimes: number[]; mergeCpu: number[]; converged: boolean } {
  const mergeTimes: number[] = [];
  const mergeCpu: number[] = [];
  let firstJson: string | undefined;
  let converged = true;
  for (let index = 0; index < updates.length; index++) {
    const own = updates[index];
    const replica = index === 0 ? first : replicaFor(index);
    if (index > 0 && own) replica.import([own]);
    const pending = updates.filter(
      (update, other) => update !== undefined && other !== index,
    ) as Uint8Array[];
    const mergeStarted = now();
    const mergeCpuStarted = cpu();
    replica.import(pending);
    const json = JSON.stringify(replica.toJSON());
    mergeTimes.push(now() - mergeStarted);
    mergeCpu.push(cpu() - mergeCpuStarted);
    firstJson ??= json;
    converged &&= json === firstJson;
    if (index > 0) replica.doc.free();
  }
  return { mergeTimes, mergeCpu, converged };
}
