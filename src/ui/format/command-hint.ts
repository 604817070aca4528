/** The store flags a command was run with, as the user gave them (none: the defaults). */
export interface StoreFlags {
  readonly store?: "embedded" | "statewave";
  readonly db?: string;
  readonly url?: string;
  readonly databaseUrl?: string;
}

/** A word as a POSIX shell reads it back: quoted only when it has to be. */
export function shellQuote(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A database URL that carries a password is not printed: it would end up in logs and screenshots. */
function hasPassword(url: string): boolean {
  try {
    return new URL(url).password !== "";
  } catch {
    return false;
  }
}

/**
 * The store flags to repeat in a copy-paste hint, so the printed command reads the same store the
 * command that printed it did (a hint that drops `--db` or `--url` fails when pasted).
 */
export function storeFlagWords(flags: StoreFlags): string[] {
  return [
    ...(flags.store ? ["--store", flags.store] : []),
    ...(flags.db ? ["--db", flags.db] : []),
    ...(flags.url ? ["--url", flags.url] : []),
    ...(flags.databaseUrl && !hasPassword(flags.databaseUrl)
      ? ["--database-url", flags.databaseUrl]
      : []),
  ];
}

/**
 * A `shared-ctx` command to copy and paste: "shared-ctx timeline sw-1a2b3c4d --db /tmp/x.db".
 * @param words the subcommand and its arguments
 */
export function formatCommandHint(words: readonly string[], flags: StoreFlags = {}): string {
  return ["shared-ctx", ...words, ...storeFlagWords(flags)].map(shellQuote).join(" ");
}
