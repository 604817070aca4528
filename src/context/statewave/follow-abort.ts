/**
 * One "abort" listener on a caller's signal however many requests are in flight on it. A command
 * passes its one signal to every read; `runs` reads every run at once, so a listener per request
 * put dozens on one signal and Node warned of a leak (MaxListenersExceededWarning at 11). Here the
 * first request on a signal adds the listener, which aborts every request still following it, and
 * the last one to finish removes it.
 */

interface Followers {
  readonly controllers: Set<AbortController>;
  readonly onAbort: () => void;
}

const following = new WeakMap<AbortSignal, Followers>();

/**
 * Aborts `controller` (with the signal's reason) when `signal` aborts, until the returned
 * function is called: call it once the request is done.
 */
export function followAbort(
  signal: AbortSignal | undefined,
  controller: AbortController,
): () => void {
  if (signal === undefined) return () => undefined;
  if (signal.aborted) {
    controller.abort(signal.reason);
    return () => undefined;
  }
  let followers = following.get(signal);
  if (followers === undefined) {
    const controllers = new Set<AbortController>();
    const onAbort = () => {
      following.delete(signal);
      for (const each of controllers) each.abort(signal.reason);
      controllers.clear();
    };
    followers = { controllers, onAbort };
    following.set(signal, followers);
    signal.addEventListener("abort", onAbort, { once: true });
  }
  const { controllers, onAbort } = followers;
  controllers.add(controller);
  return () => {
    if (!controllers.delete(controller) || controllers.size > 0) return;
    signal.removeEventListener("abort", onAbort);
    if (following.get(signal)?.controllers === controllers) following.delete(signal);
  };
}
