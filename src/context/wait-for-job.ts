/**
 * Resolves when `job` settles or after `ms`; rejects with the signal's reason when `signal` aborts,
 * also when it aborted before this was called (the Postgres store's status read is async, so an
 * abort can land between it and this wait). Leaves no timer or listener behind. Shared by the
 * embedded and the Postgres store's `compileMemoriesWait`.
 */
export function waitForJob(
  job: Promise<void> | undefined,
  ms: number,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const finish = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      finish();
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      finish();
      resolve();
    }, ms);
    // No `once`: finish() removes the listener on every path (abort, timer, job).
    signal?.addEventListener("abort", onAbort);
    // Aborted already: that abort event has passed, none will come.
    if (signal?.aborted) onAbort();
    job?.then(() => {
      finish();
      resolve();
    });
  });
}
