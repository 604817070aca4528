/** `postgres://user:secret@host/db` → `postgres://user:***@host/db`: safe to print and log. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    // Not a URL (a libpq key=value string): say which kind of thing it was, never its content.
    return "(a connection string that is not a URL)";
  }
}

/** True for the URLs `PostgresStore` takes: `postgres://…` or `postgresql://…`. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}
