/**
 * Authority: how a claim was established, so that a guess cannot overrule what a person said.
 *
 * Every write (an episode, the memory compiled from it, a shared-state write) carries one class,
 * in `metadata.authority` so that it travels on the wire and a real Statewave server keeps it.
 * The classes are totally ordered, highest first:
 * - `user`: a person said it (a CLI command or an MCP call made for a person who says so);
 * - `verified`: a tool or a test established it;
 * - `agent`: an agent decided it (the default for every write that names no class);
 * - `speculative`: an agent's guess, to be confirmed.
 *
 * Pure: no store, no clock.
 */
import type { JsonObject } from "./context-store.js";

/** The claim classes, highest first. */
export const authorities = ["user", "verified", "agent", "speculative"] as const;

/** A claim class; see the module comment for what each means. */
export type Authority = (typeof authorities)[number];

/** The class of a write that names none: an agent's decision. */
export const defaultAuthority: Authority = "agent";

/** The metadata key that carries a write's authority. */
export const authorityKey = "authority";

const rankOf = new Map<Authority, number>(
  authorities.map((authority, index) => [authority, authorities.length - index]),
);

/** Whether `value` names one of the classes exactly. */
export function isAuthority(value: unknown): value is Authority {
  return typeof value === "string" && rankOf.has(value as Authority);
}

/**
 * The authority a write's metadata declares; the default (`agent`) when it declares none or a
 * value that is not a class (metadata written before authority existed, or by another client).
 */
export function authorityOf(metadata: JsonObject | undefined): Authority {
  const declared = metadata?.[authorityKey];
  return isAuthority(declared) ? declared : defaultAuthority;
}

/** Negative when `a` ranks below `b`, 0 when equal, positive when above: for sorting highest first use `compareAuthority(b, a)`. */
export function compareAuthority(a: Authority, b: Authority): number {
  return (rankOf.get(a) ?? 0) - (rankOf.get(b) ?? 0);
}

/** Whether a write of class `newer` may overrule one of class `older`: at least equal authority. */
export function mayOverrule(newer: Authority, older: Authority): boolean {
  return compareAuthority(newer, older) >= 0;
}
