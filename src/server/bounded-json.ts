/**
 * A copy of user JSON small enough to echo back in an error's `details`: at most
 * {@link echoLimits} deep and wide, long strings cut. Echoing the input as pydantic does is
 * useful for a small body; for a hostile one (a 1 MiB string, an array nested 4,500 deep) it
 * must not cost more than the answer is worth, nor overflow the stack when rendered.
 */
export const echoLimits = {
  /** Levels kept; deeper values become `"…"`. */
  depth: 8,
  /** Members kept per object or array. */
  width: 50,
  /** Code units kept per string. */
  stringLength: 500,
  /** Values kept in the whole copy; later ones become `"…"`. */
  total: 2000,
} as const;

const elided = "…";

/** `value`, bounded for an error body. Never walks deeper than {@link echoLimits.depth}. */
export function boundedEcho(value: unknown): unknown {
  let budget: number = echoLimits.total;
  const copy = (current: unknown, depth: number): unknown => {
    budget -= 1;
    if (budget < 0) return elided;
    if (typeof current === "string") {
      return current.length > echoLimits.stringLength
        ? `${current.slice(0, echoLimits.stringLength)}${elided}`
        : current;
    }
    if (typeof current !== "object" || current === null) {
      // -0 would print as 0; the echo says what was sent.
      return Object.is(current, -0) ? "-0" : current;
    }
    if (depth >= echoLimits.depth) return elided;
    if (Array.isArray(current)) {
      const items = current.slice(0, echoLimits.width).map((item) => copy(item, depth + 1));
      if (current.length > echoLimits.width) items.push(elided);
      return items;
    }
    const entries: Array<[string, unknown]> = [];
    for (const key of Object.keys(current)) {
      if (entries.length === echoLimits.width) {
        entries.push([elided, elided]);
        break;
      }
      entries.push([key, copy((current as Record<string, unknown>)[key], depth + 1)]);
    }
    // fromEntries defines own properties: a `__proto__` key stays a plain key.
    return Object.fromEntries(entries);
  };
  return copy(value, 0);
}
