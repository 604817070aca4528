import { contradictsKey, retractsKey } from "./compile-memories.js";
import type { Memory } from "./context-store.js";

/**
 * What a memory's metadata says about its place among the others (its target, its writer, what it
 * retracts or contradicts), read the one way `SharedContext`, its decision life and a decision's
 * history all need.
 */

/** True for a retraction's memory: it names the memory it took back. */
export function isRetraction(memory: Memory): boolean {
  return typeof memory.metadata[retractsKey] === "string";
}

/** The ids of the memories a newer memory contradicts (`metadata.contradicts`). */
export function contradictedIds(memory: Memory): string[] {
  const ids = memory.metadata[contradictsKey];
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
}

/** A memory's supersede key (`payload.target`), as the store's compile rules record it. */
export function targetOf(memory: Memory): string | undefined {
  const target = memory.metadata.target;
  return typeof target === "string" ? target : undefined;
}

/** The agent that wrote a memory (`metadata.source`), or `unknown`. */
export function sourceOf(memory: Memory): string {
  const source = memory.metadata.source;
  return typeof source === "string" ? source : "unknown";
}
