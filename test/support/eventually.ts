/**
 * Reads until `check` passes on what was read, then returns it; past `timeoutMs` rethrows the
 * check's last error. For state another process imports on its own schedule (an MCP server, a
 * hook), where no event says when it has arrived.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => void,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    try {
      check(value);
      return value;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}
