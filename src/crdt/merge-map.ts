import { compareDistinct, groupBy } from "./collections.js";
import type { DisputeOf } from "./field-disputes.js";
import { coveredBy } from "./field-disputes.js";
import { canonicalJson, defineOwn } from "./json-value.js";
import {
  indexLeaves,
  isStrictPrefix,
  type Leaf,
  leavesOf,
  pathsRelated,
  samePath,
  setAtPath,
  valueAtPath,
} from "./map-leaves.js";
import type { EntryRecord } from "./state-entry.js";

/** Deep merge of a map field's live writes: each leaf path is a register. */
export function mergeMap(options: {
  key: string;
  members: readonly EntryRecord[];
  resolutions: readonly EntryRecord[];
  supersedes: (later: EntryRecord, earlier: EntryRecord) => boolean;
  disputedHeads: Map<string, string[]>;
  disputeOf: DisputeOf;
}): { value: Record<string, unknown>; attribution: Record<string, unknown> } {
  const { key, members, resolutions, supersedes, disputedHeads, disputeOf } = options;
  const { heads, byPath, paths } = mapHeads(members, resolutions, supersedes);

  const value: Record<string, unknown> = {};
  const attribution: Record<string, unknown> = {};
  const blocked: string[][] = [];
  for (const pathKey of paths) {
    const path = JSON.parse(pathKey) as string[];
    const group = byPath.get(pathKey) ?? [];
    // Paths come shortest first, so a related blocked path lies above this one.
    if (blocked.some((prefix) => pathsRelated(prefix, path))) {
      continue;
    }
    const dotted = [key, ...path].join(".");
    const scalars = group.filter((leaf) => !leaf.isMarker);
    const below = heads.filter(
      (leaf) => isStrictPrefix(path, leaf.path) || (leaf.isMarker && samePath(leaf.path, path)),
    );
    if (scalars.length > 0 && below.length > 0) {
      const involved = [...new Set([...scalars, ...below].map((leaf) => leaf.entry))];
      disputedHeads.set(
        pathKey,
        involved.map((entry) => entry.id),
      );
      const contenders = involved.map((entry) => ({
        agentId: entry.data.a,
        value: valueAtPath(entry.data.v, path),
        at: entry.data.t,
      }));
      const disputed = disputeOf(dotted, path, "kind-mismatch", contenders, involved);
      setAtPath(value, path, disputed);
      defineOwn(attribution, path.join("."), disputed.toJSON());
      blocked.push(path);
      continue;
    }
    if (scalars.length === 0) {
      setAtPath(value, path, {});
      continue;
    }
    const contenders = scalars.map((leaf) => ({
      agentId: leaf.entry.data.a,
      value: leaf.value,
      at: leaf.entry.data.t,
    }));
    if (new Set(scalars.map((leaf) => canonicalJson(leaf.value))).size > 1) {
      disputedHeads.set(
        pathKey,
        scalars.map((leaf) => leaf.entry.id),
      );
      const disputed = disputeOf(
        dotted,
        path,
        "concurrent-register",
        contenders,
        scalars.map((leaf) => leaf.entry),
      );
      setAtPath(value, path, disputed);
      defineOwn(attribution, path.join("."), disputed.toJSON());
      continue;
    }
    const last = contenders[contenders.length - 1];
    setAtPath(value, path, last?.value);
    defineOwn(attribution, path.join("."), last);
  }
  return { value, attribution };
}

/**
 * The leaves of a map's live writes that no later write replaced (at their path, above it or
 * below it), grouped by path, with the paths shortest first.
 */
function mapHeads(
  members: readonly EntryRecord[],
  resolutions: readonly EntryRecord[],
  supersedes: (later: EntryRecord, earlier: EntryRecord) => boolean,
): { heads: Leaf[]; byPath: Map<string, Leaf[]>; paths: string[] } {
  const leafResolutions = resolutions.flatMap((resolution) =>
    resolution.data.rp === undefined ? [] : [{ resolution, path: resolution.data.rp }],
  );
  const leaves = members
    .flatMap((member) => leavesOf(member))
    .filter(
      (leaf) =>
        !leafResolutions.some(
          ({ resolution, path }) =>
            pathsRelated(path, leaf.path) && coveredBy(leaf.entry, resolution),
        ),
    );
  // A leaf is replaced by a later write at the same path, above it or below it.
  const index = indexLeaves(leaves);
  // Latest first: in the usual chain of writes the last one replaces the others, so the search
  // stops at once (scanning oldest first made n writes to one path cost O(n^2)).
  const supersededIn = (group: readonly Leaf[] | undefined, leaf: Leaf): boolean =>
    group?.findLast((other) => supersedes(other.entry, leaf.entry)) !== undefined;
  const heads = leaves.filter((leaf) => {
    // At its own path first (the usual replacement), then above it.
    for (let length = leaf.path.length; length >= 0; length--) {
      if (supersededIn(index.byPath.get(JSON.stringify(leaf.path.slice(0, length))), leaf)) {
        return false;
      }
    }
    return !supersededIn(index.under.get(leaf.pathKey), leaf);
  });
  const byPath = groupBy(heads, (leaf) => JSON.stringify(leaf.path));
  const paths = [...byPath.keys()].sort((left, right) => {
    const leftPath = JSON.parse(left) as string[];
    const rightPath = JSON.parse(right) as string[];
    return leftPath.length - rightPath.length || compareDistinct(left, right);
  });
  return { heads, byPath, paths };
}
