import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { type InvalidationNotice, SharedContext } from "../../../src/context/shared-context.js";
import { SharedState } from "../../../src/crdt/shared-state.js";
import { closeAfterEach } from "./shared-context-fixture.js";

/** The subject every shared-context set-up works on. */
export const subjectId = "project-1";

/** The metadata of an architectural decision about `target`. */
export const decision = (target: string) => ({ kind: "architectural_decision", target });

/** The invalidation notices `callerId` is given, as they arrive. */
export function listen(shared: SharedContext, callerId: string): InvalidationNotice[] {
  const notices: InvalidationNotice[] = [];
  shared.onInvalidated(callerId, (notice) => notices.push(notice));
  return notices;
}

/** The notices `callerId` is given, and the moment the first arrives: notices are told after the write returns. */
export function listenForFirst(shared: SharedContext, callerId: string) {
  const notices: InvalidationNotice[] = [];
  const first = new Promise<void>((resolve) => {
    shared.onInvalidated(callerId, (notice) => {
      notices.push(notice);
      resolve();
    });
  });
  return { notices, first };
}

/**
 * Shared contexts over in-memory stores, each closed after its test: a bare one, one over a live
 * shared state (as a lead agent runs it), and a dispute raised by two replicas.
 */
export function sharedContextSetups() {
  const opened = closeAfterEach();

  function setUp(options: { onError?: (error: unknown) => void; state?: SharedState } = {}) {
    const store = new EmbeddedStore({ path: ":memory:" });
    const shared = new SharedContext({ store, subjectId, ...options });
    opened.push(store, shared);
    return { store, shared };
  }

  /** A shared context over a live shared state, as a lead agent runs it. */
  async function setUpWithState() {
    const store = new EmbeddedStore({ path: ":memory:" });
    opened.push(store);
    const state = await SharedState.open({ store, subjectId, agentId: "lead" });
    opened.push(state);
    const shared = new SharedContext({ store, subjectId, state });
    opened.push(shared);
    return { store, state, shared };
  }

  /** Two replicas that have not seen each other write different values to one field. */
  async function raiseDispute(
    store: EmbeddedStore,
    key: string,
    agents: readonly [string, string] = ["coder-1", "coder-2"],
  ) {
    const replicas = await Promise.all(
      // Fixed peer ids: the contenders' order is the same on every run.
      agents.map((agentId, index) =>
        SharedState.open({ store, subjectId, agentId, live: false, peerId: index + 1 }),
      ),
    );
    opened.push(...replicas);
    await replicas[0]?.put("modules", key, "one");
    await replicas[1]?.put("modules", key, "two");
  }

  return { opened, setUp, setUpWithState, raiseDispute };
}
