import { Disputed } from "../crdt/disputed.js";
import { canonicalJson, isPlainObject } from "../crdt/json-value.js";
import { slot, type Workload, type Write } from "./merge-workloads.js";

// What a strategy stored against what the agents wrote: whole values as the baselines write them,
// and the writes whose effect is missing without having been surfaced.

/** How an agent that only knows `current` writes `write` as a whole value (what lww and transactions store). */
export function wholeValue(current: unknown, write: Write): unknown {
  switch (write.kind) {
    case "set":
      return [...(Array.isArray(current) ? current : []), write.value];
    case "text":
      return typeof current === "string"
        ? `${current}\n${String(write.value)}`
        : String(write.value);
    case "counter":
      return (typeof current === "number" ? current : 0) + Number(write.value);
    case "map":
      return deepMerge(current, write.value);
    case "register":
      return write.value;
  }
}

/** `source` merged into `target`, object by object. */
export function deepMerge(target: unknown, source: unknown): unknown {
  if (!isPlainObject(target) || !isPlainObject(source)) return source;
  const merged: Record<string, unknown> = { ...target };
  for (const [name, value] of Object.entries(source)) merged[name] = deepMerge(merged[name], value);
  return merged;
}

/**
 * Counts writes whose effect is missing from `final` and was not surfaced (a `Disputed` lists
 * it, or a model call saw it). A register write replaced by the same agent's later write is not lost.
 */
export function countLost(
  workload: Workload,
  read: (write: Write) => unknown,
  surfaced: Set<Write>,
): number {
  let lost = 0;
  const all = workload.scripts.flat();
  const counters = new Map<string, number>();
  for (const write of all) {
    if (surfaced.has(write)) continue;
    const value = read(write);
    if (value instanceof Disputed) {
      if (
        value.contenders.some(
          (contender) =>
            canonicalJson(contender.value) === canonicalJson(write.value) ||
            contender.agentId === write.agent,
        )
      )
        continue;
    }
    switch (write.kind) {
      case "set":
        if (
          !Array.isArray(value) ||
          !value.some((element) => canonicalJson(element) === canonicalJson(write.value))
        )
          lost++;
        break;
      case "text":
        if (typeof value !== "string" || !value.includes(String(write.value))) lost++;
        break;
      case "counter":
        counters.set(slot(write), (counters.get(slot(write)) ?? 0) + Number(write.value));
        break;
      case "map": {
        for (const [name, leaf] of flatten(write.value)) {
          if (
            canonicalJson(valueAt(value, name)) !== canonicalJson(leaf) &&
            !(valueAt(value, name) instanceof Disputed)
          ) {
            const replacedBySameAgent = laterSameAgent(workload, write, (later) =>
              flatten(later.value).some(([other]) => other === name),
            );
            if (!replacedBySameAgent) lost++;
          }
        }
        break;
      }
      case "register":
        if (
          canonicalJson(value) !== canonicalJson(write.value) &&
          !laterSameAgent(workload, write, () => true)
        )
          lost++;
        break;
    }
  }
  for (const [key, expected] of counters) {
    const write = all.find((candidate) => slot(candidate) === key);
    const actual = write ? Number(read(write) ?? 0) : 0;
    lost += Math.max(0, expected - actual);
  }
  return lost;
}

/** Whether `write`'s agent later writes the same slot again in a way `touches` accepts. */
function laterSameAgent(
  workload: Workload,
  write: Write,
  touches: (later: Write) => boolean,
): boolean {
  const script = workload.scripts.find((candidate) => candidate.includes(write)) ?? [];
  return script
    .slice(script.indexOf(write) + 1)
    .some((later) => slot(later) === slot(write) && touches(later));
}

/** A map value's leaves as dotted paths. */
export function flatten(value: unknown, prefix: string[] = []): Array<[string, unknown]> {
  if (!isPlainObject(value)) return [[prefix.join("."), value]];
  return Object.entries(value).flatMap(([name, child]) => flatten(child, [...prefix, name]));
}

/** `leaf` nested at the dotted path. */
export function nest(dotted: string, leaf: unknown): unknown {
  return dotted
    .split(".")
    .reverse()
    .reduce<unknown>((inner, part) => ({ [part]: inner }), leaf);
}

/** The value at the dotted path inside `value`. */
export function valueAt(value: unknown, dotted: string): unknown {
  let current = value;
  for (const part of dotted.split("."))
    current = isPlainObject(current) ? current[part] : undefined;
  return current;
}
