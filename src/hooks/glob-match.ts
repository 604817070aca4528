/**
 * A small glob matcher for module path patterns (Node 20 has no stable `fs.glob`/`path.matchesGlob`).
 * Paths and patterns use `/`, relative to the project root. Supported:
 * - `*` any run of characters within one path segment, `?` one character (never `/`);
 * - `**` as a whole segment: zero or more segments (`src/**` matches `src` and everything under it);
 * - `{a,b}` alternatives (not nested); `[abc]`, `[a-z]`, `[!a]` character classes;
 * - a pattern without a glob character matches that path and everything under it (`src/billing`).
 * Pure: no file system.
 */

/** Characters that make a pattern a glob rather than a plain path. */
const globCharacters = /[*?[{]/;

/** Escapes a literal character for a regular expression. */
function escapeCharacter(character: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(character) ? `\\${character}` : character;
}

/** Expands `{a,b}` groups (not nested) into every alternative pattern. */
function expandBraces(pattern: string): string[] {
  const open = pattern.indexOf("{");
  if (open < 0) return [pattern];
  const close = pattern.indexOf("}", open);
  if (close < 0) return [pattern];
  const before = pattern.slice(0, open);
  const after = pattern.slice(close + 1);
  return pattern
    .slice(open + 1, close)
    .split(",")
    .flatMap((alternative) => expandBraces(`${before}${alternative}${after}`));
}

/** One path segment's pattern (no `/`, not `**`) as a regular expression source. */
function segmentSource(segment: string): string {
  let source = "";
  for (let index = 0; index < segment.length; index += 1) {
    const character = segment.charAt(index);
    if (character === "*") {
      // Consecutive stars inside a segment mean the same as one.
      while (segment.charAt(index + 1) === "*") index += 1;
      source += "[^/]*";
    } else if (character === "?") {
      source += "[^/]";
    } else if (character === "[") {
      const close = segment.indexOf("]", index + 2);
      if (close < 0) {
        source += "\\[";
        continue;
      }
      let body = segment.slice(index + 1, close);
      const negated = body.startsWith("!") || body.startsWith("^");
      if (negated) body = body.slice(1);
      const escaped = body.replace(/[\\\]^]/g, (match) => `\\${match}`);
      source += negated ? `[^/${escaped}]` : `[${escaped}]`;
      index = close;
    } else {
      source += escapeCharacter(character);
    }
  }
  return source;
}

/** Normalises a path or pattern: `/` separators, no `./` prefix, no trailing or doubled `/`. */
export function normalizeSlashes(path: string): string {
  return path
    .replace(/\\/g, "/")
    .replace(/\/{2,}/g, "/")
    .replace(/^(?:\.\/)+/, "")
    .replace(/\/$/, "");
}

/**
 * Compiles a glob into a regular expression matching whole relative paths.
 * @example globToRegExp("packages/*\/src/**").test("packages/billing/src/a.ts") // true
 */
export function globToRegExp(pattern: string): RegExp {
  const alternatives = expandBraces(normalizeSlashes(pattern)).map((alternative) => {
    const plain = !globCharacters.test(alternative);
    const segments = alternative.split("/");
    let source = "";
    segments.forEach((segment, index) => {
      const first = index === 0;
      const last = index === segments.length - 1;
      if (segment !== "**") {
        // After a leading `**` the separator is already part of its group.
        const slash = first || (index === 1 && segments[0] === "**") ? "" : "/";
        source += `${slash}${segmentSource(segment)}`;
      } else if (first && last) {
        source += ".*";
      } else if (first) {
        // A leading `**`: any depth from the root, the root itself included.
        source += "(?:[^/]+/)*";
      } else if (last) {
        // A trailing `**` matches the folder itself and everything below it.
        source += "(?:/.*)?";
      } else {
        // `a/**/b` matches `a/b` too.
        source += "(?:/[^/]+)*";
      }
    });
    // A plain path names a folder (or file): everything under it belongs to it.
    return plain ? `${source}(?:/.*)?` : source;
  });
  return new RegExp(`^(?:${alternatives.join("|")})$`);
}

/** Whether a project-relative path matches a glob (see {@link globToRegExp}). */
export function matchesGlob(path: string, pattern: string): boolean {
  return globToRegExp(pattern).test(normalizeSlashes(path));
}
