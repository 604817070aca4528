import type { ContextStore, Memory, MemoryQuery, MemoryStatus } from "./context-store.js";
import { StoreValidationError } from "./errors/store-validation-error.js";
import { readMemoryCursor } from "./store-cursors.js";
import { requireId, requireInteger } from "./validate-input.js";

/** The bounds of a `MemoryQuery`. */
export const memoryQueryLimits = {
  /** Page size. */
  limit: 500,
  /** Targets in one query. */
  targets: 100,
  /** Characters of one target or prefix. */
  target: 4000,
  /** Characters of a kind. */
  kind: 128,
  /** Page size of `changesSince`. */
  changes: 500,
} as const;

const statuses: ReadonlySet<string> = new Set(["active", "superseded", "deleted", "any"]);

/** A `MemoryQuery` checked, with its defaults, as both SQL stores run it. */
export interface ValidMemoryQuery {
  kind: string | undefined;
  /** undefined: any target; [] matches nothing. Duplicates removed. */
  targets: string[] | undefined;
  targetPrefix: string | undefined;
  /** Only memories without a target. */
  untargeted: boolean;
  /** undefined: any status. */
  status: MemoryStatus | undefined;
  limit: number;
  /** Only memories with a lower seq (null: from the newest). */
  beforeSeq: number | null;
}

/**
 * Checks a `listMemories` query. Strict on purpose: an exact read that silently widened a filter
 * it could not read ("" as "any kind") would answer another question.
 * @throws StoreValidationError naming the field; InvalidCursorError for the cursor
 */
export function validateMemoryQuery(query: MemoryQuery): ValidMemoryQuery {
  const kind =
    query.kind === undefined ? undefined : requireId("kind", query.kind, memoryQueryLimits.kind);
  let targets: string[] | undefined;
  if (query.targets !== undefined) {
    if (!Array.isArray(query.targets) || query.targets.length > memoryQueryLimits.targets) {
      throw new StoreValidationError(
        "targets",
        `a list of at most ${memoryQueryLimits.targets} targets`,
      );
    }
    targets = [
      ...new Set(
        query.targets.map((target: unknown, index) =>
          requireId(`targets[${index}]`, target, memoryQueryLimits.target),
        ),
      ),
    ];
  }
  const targetPrefix =
    query.targetPrefix === undefined
      ? undefined
      : requireId("targetPrefix", query.targetPrefix, memoryQueryLimits.target);
  const untargeted = query.untargeted ?? false;
  if (typeof untargeted !== "boolean") throw new StoreValidationError("untargeted", "a boolean");
  if (untargeted && (targets !== undefined || targetPrefix !== undefined)) {
    throw new StoreValidationError("untargeted", "false (or absent) with targets or targetPrefix");
  }
  const status = query.status ?? "active";
  if (typeof status !== "string" || !statuses.has(status)) {
    throw new StoreValidationError("status", `one of "active", "superseded", "deleted", "any"`);
  }
  return {
    kind,
    targets,
    targetPrefix,
    untargeted,
    status: status === "any" ? undefined : (status as MemoryStatus),
    limit: requireInteger("limit", query.limit, 1, memoryQueryLimits.limit, 100),
    beforeSeq: readMemoryCursor(query.cursor),
  };
}

/** `changesSince`' page size, 1..500 (@default 100). @throws StoreValidationError */
export function validateChangesLimit(limit: unknown): number {
  return requireInteger("limit", limit, 1, memoryQueryLimits.changes, 100);
}

/**
 * The least string above every string that starts with `prefix`, in code point order (SQLite's
 * BINARY and Postgres' "C" collation order UTF-8 text by code point): `target >= prefix AND target
 * < upper` is then exactly "starts with prefix", and an index range. Undefined when no string is
 * above (a prefix of only U+10FFFF): the lower bound alone is exact then.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const points = Array.from(prefix, (character) => character.codePointAt(0) ?? 0);
  while (points.length > 0 && points[points.length - 1] === 0x10ffff) points.pop();
  const last = points.pop();
  if (last === undefined) return undefined;
  // The surrogate range holds no characters: the next one after U+D7FF is U+E000.
  points.push(last + 1 === 0xd800 ? 0xe000 : last + 1);
  return String.fromCodePoint(...points);
}

/**
 * Every memory of the subject that matches `query` (its `limit` and `cursor` aside), newest first:
 * pages through `listMemories` to the end. The complete answer an action-deciding read needs ("is
 * there a decision about X?"), at the cost of one indexed page per `limit` matches.
 * @param query.limit the page size of each read (@default 500, the most a page holds)
 */
export async function listAllMemories(
  store: Pick<ContextStore, "listMemories">,
  subjectId: string,
  query: Omit<MemoryQuery, "cursor"> & { signal?: AbortSignal } = {},
): Promise<Memory[]> {
  const all: Memory[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listMemories(subjectId, {
      ...query,
      limit: query.limit ?? memoryQueryLimits.limit,
      cursor,
    });
    all.push(...page.memories);
    // A store that hands back the cursor it was given would page forever: refuse it instead.
    if (page.nextCursor !== null && page.nextCursor === cursor) {
      throw new StoreValidationError("cursor", "a cursor that moves on (the store repeated one)");
    }
    cursor = page.nextCursor;
  } while (cursor !== null);
  return all;
}

/**
 * Whether `memory` matches the query's filters (its page and cursor aside): the same rule as the
 * SQL stores' WHERE clause, for a store that filters what it could read (`StatewaveStore` over a
 * server without the exact routes).
 */
export function memoryMatches(memory: Memory, query: ValidMemoryQuery): boolean {
  if (query.status !== undefined && memory.status !== query.status) return false;
  if (query.kind !== undefined && memory.kind !== query.kind) return false;
  const target = memory.metadata.target;
  if (query.untargeted && typeof target === "string") return false;
  if (query.targets !== undefined) {
    if (typeof target !== "string" || !query.targets.includes(target)) return false;
  }
  if (query.targetPrefix !== undefined) {
    if (typeof target !== "string" || !target.startsWith(query.targetPrefix)) return false;
  }
  return true;
}
