/**
 * The candidates closest to a mistyped word, for "did you mean" hints on commands and options.
 * Pure: the caller says what the candidates are.
 */

/** Edit distance with adjacent transpositions (optimal string alignment): `rnu` → `run` is 1. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  const at = (row: number, column: number): number => table[row]?.[column] ?? 0;
  for (let row = 1; row < rows; row += 1) {
    for (let column = 1; column < columns; column += 1) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      let best = Math.min(
        at(row - 1, column) + 1,
        at(row, column - 1) + 1,
        at(row - 1, column - 1) + cost,
      );
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1]) {
        best = Math.min(best, at(row - 2, column - 2) + 1);
      }
      const line = table[row];
      if (line) line[column] = best;
    }
  }
  return at(rows - 1, columns - 1);
}

/**
 * The candidates nearest to `word` (all of them on a tie), or none when even the nearest is too
 * far to be a slip of the fingers: at most 2 edits, and fewer than half the word's letters. A
 * candidate that starts with the word (`--mod` for `--mode`) always counts.
 */
export function suggestSimilar(word: string, candidates: readonly string[]): string[] {
  // Leading dashes are the same for every option: they would make `--x` look close to `--y`.
  const bare = (value: string) => value.replace(/^-+/, "");
  const typed = bare(word);
  if (typed === "") return [];
  let best = Number.POSITIVE_INFINITY;
  let nearest: string[] = [];
  for (const candidate of new Set(candidates)) {
    const name = bare(candidate);
    const distance = name.startsWith(typed) && typed.length >= 2 ? 0.5 : editDistance(typed, name);
    const limit = Math.min(2, Math.ceil(typed.length / 2) - (typed.length > 2 ? 0 : 1));
    if (distance > limit && distance !== 0.5) continue;
    if (distance < best) {
      best = distance;
      nearest = [candidate];
    } else if (distance === best) {
      nearest.push(candidate);
    }
  }
  return nearest.sort();
}

/**
 * At most `count` of `candidates` nearest to `typed` (an id or a prefix of one): those that start
 * with it first, then by edit distance over the candidate's first characters, then by name. What
 * an error about an unknown or ambiguous id lists, so it names a few, never hundreds.
 */
export function nearestIds(typed: string, candidates: readonly string[], count = 5): string[] {
  const word = typed.toLowerCase();
  const score = (candidate: string): number => {
    const name = candidate.toLowerCase();
    if (word !== "" && name.startsWith(word)) return -1;
    return editDistance(word, name.slice(0, Math.max(word.length, 1)));
  };
  return [...new Set(candidates)]
    .map((candidate) => ({ candidate, score: score(candidate) }))
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
    .slice(0, count)
    .map(({ candidate }) => candidate);
}

/** `ids` as a list for a message: `a, b, c` and, past what is shown, `… and N more`. */
export function listSome(shown: readonly string[], total: number): string {
  const more = total - shown.length;
  return more > 0 ? `${shown.join(", ")} … and ${more} more` : shown.join(", ");
}
