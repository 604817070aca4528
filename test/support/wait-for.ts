/**
 * Retries an assertion until it passes or the timeout elapses (then rethrows its last error).
 * Ink renders asynchronously (throttled frames, effects), so frame assertions poll instead of sleeping
 * a fixed time.
 */
export async function waitFor(
  assertion: () => void | Promise<void>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const intervalMs = options.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
