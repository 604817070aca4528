import { InvalidCursorError } from "./errors/invalid-cursor-error.js";

/**
 * The paging cursors of the SQL stores (embedded, Postgres) and so of `shared-ctx serve`. Opaque
 * to callers; inside, a tag naming the read and the positions it stopped at, so a cursor handed to
 * the wrong read is refused instead of silently starting somewhere else:
 * - `m1.<seq>`: `listMemories`, the seq of the last (oldest) memory of the page.
 * - `c1.<episode seq>.<memory change>`: `changesSince`, the last episode and memory change given.
 * - `t1.<episode seq>.<memory seq>`: `getTimeline`, the last episode and memory of the page.
 * Positions are only ever compared (`seq < n`, `seq > n`), so any cursor from an earlier page stays
 * valid however many writes come between.
 */

/** The reads a cursor belongs to, by tag. */
const reads = { m1: "listMemories", c1: "changesSince", t1: "getTimeline" } as const;
type CursorTag = keyof typeof reads;

/** Decimal digits, no sign, no leading zero (but "0" itself): the one spelling of a position. */
const position = /^(0|[1-9][0-9]{0,15})$/;

function decode(tag: CursorTag, cursor: unknown, count: number): number[] {
  const read = reads[tag];
  if (typeof cursor !== "string") throw new InvalidCursorError(cursor, read);
  const parts = cursor.split(".");
  if (parts.length !== count + 1 || parts[0] !== tag) throw new InvalidCursorError(cursor, read);
  const numbers = parts.slice(1).map((part) => (position.test(part) ? Number(part) : Number.NaN));
  if (numbers.some((value) => !Number.isSafeInteger(value))) {
    throw new InvalidCursorError(cursor, read);
  }
  return numbers;
}

/** The cursor after a memory page whose oldest memory has this seq. */
export function memoryCursor(seq: number): string {
  return `m1.${seq}`;
}

/**
 * The seq a `listMemories` page starts below (null/undefined: from the newest).
 * @throws InvalidCursorError
 */
export function readMemoryCursor(cursor: unknown): number | null {
  if (cursor === undefined || cursor === null) return null;
  return decode("m1", cursor, 1)[0] ?? 0;
}

/** Two positions: the episodes' and the memories'. */
export interface CursorPair {
  episode: number;
  memory: number;
}

/** The cursor after a change page that ended at these positions. */
export function changeCursor(at: CursorPair): string {
  return `c1.${at.episode}.${at.memory}`;
}

/** Where `changesSince` continues (null: from the start). @throws InvalidCursorError */
export function readChangeCursor(cursor: unknown): CursorPair {
  if (cursor === null || cursor === undefined) return { episode: 0, memory: 0 };
  const [episode = 0, memory = 0] = decode("c1", cursor, 2);
  return { episode, memory };
}

/** The cursor after a timeline page whose newest episode and memory have these seqs. */
export function timelineCursor(at: CursorPair): string {
  return `t1.${at.episode}.${at.memory}`;
}

/** Where `getTimeline` continues (null: from the oldest). @throws InvalidCursorError */
export function readTimelineCursor(cursor: unknown): CursorPair | null {
  if (cursor === null || cursor === undefined) return null;
  const [episode = 0, memory = 0] = decode("t1", cursor, 2);
  return { episode, memory };
}
