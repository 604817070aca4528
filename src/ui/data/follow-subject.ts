import type { ContextStore, Episode, Memory, StoreChange } from "../../context/context-store.js";
import { SharedState } from "../../crdt/shared-state.js";
import type { EditActivity } from "../../hooks/edit-activity.js";
import { buildSubjectView, type SubjectView } from "../format/subject-view.js";
import { readFullTimeline } from "./read-run.js";
import { readOnlyStore } from "./read-shared-state.js";

/** A subject followed live: its view now, and every later view to a listener. */
export interface SubjectFollower {
  /** The view as of the latest change applied. */
  view(): SubjectView;
  /**
   * Sends each new view to `onView` (one per burst of changes, after the change is applied),
   * failures of the feed to `onError`. Replaces the previous listener.
   */
  listen(onView: (view: SubjectView) => void, onError: (error: unknown) => void): void;
  /** Stops following; does not close the store. */
  close(): Promise<void>;
}

/**
 * A second, small subject followed beside the main one (the coding sessions' edit records): read
 * whole again on each of its changes, which is cheap (its claims expire) and keeps the main
 * subject's cost per change independent of it.
 */
export interface FollowedEdits {
  /** The companion subject to watch. */
  subjectId: string;
  /** Reads the edit activity as of now. */
  read(): Promise<EditActivity>;
}

/**
 * Follows a subject for `shared-ctx watch` at a cost per change that follows the change, not the
 * history: the subject's timeline is read once, then each change from `store.watch` is applied to
 * that copy (a new episode appended, a memory replaced by id), and one shared-state replica
 * imports only the new updates. Re-reading the whole subject on every change cost 104 % of a core
 * on a 15k-episode subject.
 *
 * The feed is subscribed before the first read, so nothing written between the two is missed;
 * what the read already holds is recognised by id and not applied twice.
 */
export async function followSubject(
  store: ContextStore,
  subjectId: string,
  options: { signal?: AbortSignal; edits?: FollowedEdits } = {},
): Promise<SubjectFollower> {
  const episodes: Episode[] = [];
  const episodeIds = new Set<string>();
  const memories: Memory[] = [];
  /** Position of each memory id in `memories`. */
  const memoryIndex = new Map<string, number>();
  let onView: (view: SubjectView) => void = () => undefined;
  let onError: (error: unknown) => void = () => undefined;
  let loaded = false;
  let closed = false;
  let scheduled = false;
  const buffered: StoreChange[] = [];

  const apply = (change: StoreChange) => {
    if (change.type === "episode") {
      if (episodeIds.has(change.episode.id)) return;
      episodeIds.add(change.episode.id);
      episodes.push(change.episode);
      return;
    }
    const at = memoryIndex.get(change.memory.id);
    if (at === undefined) {
      memoryIndex.set(change.memory.id, memories.length);
      memories.push(change.memory);
    } else {
      memories[at] = change.memory;
    }
  };

  const subscription = store.watch(
    subjectId,
    (change) => {
      if (closed) return;
      if (!loaded) {
        buffered.push(change);
        return;
      }
      apply(change);
      schedule();
    },
    { onError: (error) => onError(error) },
  );
  let edits: EditActivity | undefined;
  const refreshEdits = async () => {
    if (!options.edits) return;
    edits = await options.edits.read();
  };
  const editsSubscription = options.edits
    ? store.watch(
        options.edits.subjectId,
        () => {
          if (closed) return;
          refreshEdits().then(
            () => schedule(),
            (error: unknown) => onError(error),
          );
        },
        { onError: (error) => onError(error) },
      )
    : undefined;
  let state: SharedState | undefined;
  try {
    await refreshEdits();
    const timeline = await readFullTimeline(store, subjectId, options);
    for (const episode of timeline.episodes) {
      apply({ type: "episode", episode });
    }
    for (const memory of timeline.memories) apply({ type: "memory", memory });
    for (const change of buffered.splice(0)) apply(change);
    loaded = true;
    // One replica for the whole watch: it follows the store itself and imports only new updates.
    state = await SharedState.open({
      store: readOnlyStore(store),
      subjectId,
      agentId: "shared-ctx-watch",
      live: true,
      onError: (error) => onError(error),
    });
  } catch (error) {
    subscription.close();
    editsSubscription?.close();
    throw error;
  }
  const replica = state;

  const view = (): SubjectView =>
    buildSubjectView(
      { subjectId, episodes, memories },
      { values: replica.toJSON(), escalations: replica.escalations() },
      edits,
    );
  function schedule() {
    if (scheduled || closed) return;
    scheduled = true;
    // A burst of changes delivered together becomes one view.
    queueMicrotask(() => {
      scheduled = false;
      if (closed) return;
      try {
        onView(view());
      } catch (error) {
        onError(error);
      }
    });
  }
  const stopStateChanges = replica.onChange(() => schedule());

  return {
    view,
    listen(nextView, nextError) {
      onView = nextView;
      onError = nextError;
    },
    async close() {
      if (closed) return;
      closed = true;
      stopStateChanges();
      subscription.close();
      editsSubscription?.close();
      await replica.close();
    },
  };
}
