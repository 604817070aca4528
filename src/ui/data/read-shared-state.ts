import type { ContextStore } from "../../context/context-store.js";
import { type Escalation, SharedState } from "../../crdt/shared-state.js";

/** The merging shared state of a subject as one reader sees it now. */
export interface SharedStateSnapshot {
  /** Every namespace's fields, by key (a disputed field reads as its dispute). */
  readonly values: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Every escalation so far, settled ones included. */
  readonly escalations: readonly Escalation[];
}

/**
 * The store as a viewer uses it: reads pass through, writes are dropped. A replica opened to look
 * may decide it is the one to announce an escalation; a viewer must never write to the subject.
 */
export function readOnlyStore(store: ContextStore): ContextStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === "createEpisode") {
        return async (input: { subjectId: string; source: string; type: string }) => ({
          ...input,
          id: "read-only",
          payload: {},
          metadata: {},
          provenance: {},
          createdAt: new Date(0).toISOString(),
        });
      }
      if (property === "createEpisodesBatch") return async () => [];
      if (property === "close") return async () => undefined;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Reads a subject's shared state (claims, fields, escalations) by loading a throw-away replica
 * that never writes and never follows.
 */
export async function readSharedState(
  store: ContextStore,
  subjectId: string,
): Promise<SharedStateSnapshot> {
  const state = await SharedState.open({
    store: readOnlyStore(store),
    subjectId,
    agentId: "shared-ctx-watch",
    live: false,
  });
  try {
    return { values: state.toJSON(), escalations: state.escalations() };
  } finally {
    await state.close();
  }
}
