/**
 * Statewave v0.7.1's profile-fact patterns (`../shared/statewave-contract.md` §8.3): what a person
 * says about themselves ("My name is Alice Chen", "I work at Globex", "I live in Berlin"), as its
 * heuristic compiler finds it. Shared by the stores' compile and the v0.7.1 emulation.
 */

/** Python's whitespace for `\s` and `strip()` (JS `\s` lacks \x1c-\x1f and \x85, and has \uFEFF). */
const pythonSpace =
  "[\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const pythonEdges = new RegExp(`^${pythonSpace}+|${pythonSpace}+$`, "gu");

/** The five patterns in their order; JS has no scoped `(?i:)`, so the first spells its prefix out. */
const factPatterns: readonly RegExp[] = [
  /(?:[Mm][Yy]\s+[Nn][Aa][Mm][Ee]\s+[Ii][Ss]|[Ii]'[Mm]|[Ii]\s+[Aa][Mm])\s+([A-Z][a-z]+(?:\s[A-Z][a-z]+)*)/gu,
  /(?:i work at|i'm at|i am at)\s+(.+?)(?:\.|,|\n|$)/giu,
  /(?:i am on|i'm on)\s+(.+?)(?:\.|,|\n|$)/giu,
  /(?:i live in|i'm from|i am from)\s+(.+?)(?:\.|,|\n|$)/giu,
  /(?:i use|i prefer|my favorite)\s+(.+?)(?:\.|,|\n|$)/giu,
];

/**
 * Every profile fact in `text`, pattern by pattern (the pattern order decides the output order,
 * as in Statewave), duplicates kept: each match stripped, then trailing `.` and `,` dropped.
 */
export function profileFactsOf(text: string): string[] {
  const facts: string[] = [];
  for (const pattern of factPatterns) {
    for (const match of text.matchAll(pattern)) {
      const content = match[0].replace(pythonEdges, "").replace(/\.+$/, "").replace(/,+$/, "");
      if (content) facts.push(content);
    }
  }
  return facts;
}
