import { createHash } from "node:crypto";

/**
 * Agent names as the hooks record them. A harness's session id is an opaque string: Claude Code
 * sends a UUID, but nothing stops a wrapper from sending 300 characters or a NUL, which no store
 * takes as an author (1..256 characters, no U+0000, no unpaired surrogate). Refused by the store,
 * such a name used to read as "store unreachable" and let the edit through; normalised, it is a
 * stable, valid name: the same session id always gives the same name.
 */

/** Names up to this many characters (code points) are kept as they are, if clean. */
export const maxKeptNameLength = 100;
/** How much of a long or unclean name is kept, readable, before its hash. */
const readablePrefixLength = 40;

/** Control characters (C0, DEL, C1) and unpaired surrogates: never kept in a name. */
const uncleanSource = String.raw`[\u0000-\u001f\u007f-\u009f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]`;
const unclean = new RegExp(uncleanSource);
const uncleanGlobal = new RegExp(uncleanSource, "g");

/**
 * `name` when it is a clean name of 1..{@link maxKeptNameLength} characters; otherwise a readable
 * prefix of it (control characters dropped, at most 40 characters; `session` when nothing is left)
 * and `~` with the first 16 hex digits of the SHA-256 of the whole name, so that two different
 * long ids stay two names. Empty stays empty (no name at all).
 */
export function normaliseAgentName(name: string): string {
  if (name === "") return "";
  const points = [...name];
  if (points.length <= maxKeptNameLength && !unclean.test(name)) return name;
  const readable = [...name.replace(uncleanGlobal, "").replace(/\s+/g, " ").trim()]
    .slice(0, readablePrefixLength)
    .join("")
    .trim();
  const hash = createHash("sha256").update(name, "utf8").digest("hex").slice(0, 16);
  return `${readable || "session"}~${hash}`;
}
