import type { ContextStore, StoreChange } from "../../context/context-store.js";
import { SharedState } from "../../crdt/shared-state.js";
import type { EditActivity } from "../../hooks/edit-activity.js";
import { SubjectDigest } from "../format/subject-digest.js";
import { type SubjectView, viewOfDigest } from "../format/subject-view.js";
import { forEachTimelinePage } from "./read-run.js";
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

/** The listeners a follower sends to; both quiet until `listen` replaces them. */
interface FollowerListeners {
  onView: (view: SubjectView) => void;
  onError: (error: unknown) => void;
}

/** What a feed tells the follower: whether it is closed, that something changed, that it failed. */
interface FeedHooks {
  isClosed(): boolean;
  onChange(): void;
  onError(error: unknown): void;
}

/**
 * Follows a subject for `shared-ctx watch` at a cost per change that follows the change, not the
 * history: the subject's timeline is read once, then each change from `store.watch` is applied to
 * its digest (an episode folded in and dropped, a decision replaced by id: `subject-digest.ts`,
 * so the follower never holds the subject itself), and one shared-state replica
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
  const listeners: FollowerListeners = { onView: () => undefined, onError: () => undefined };
  const reportError = (error: unknown) => listeners.onError(error);
  const copy = new SubjectDigest(subjectId, { dedupe: true });
  let closed = false;
  let replica: SharedState | undefined;
  const schedule = coalesceBursts(
    () => closed,
    () => {
      // Nobody can listen before the follower is returned, and by then the replica is open.
      if (replica === undefined) return;
      try {
        listeners.onView(viewOf(replica));
      } catch (error) {
        reportError(error);
      }
    },
  );
  const hooks: FeedHooks = { isClosed: () => closed, onChange: schedule, onError: reportError };
  const changes = watchChanges(store, subjectId, copy, hooks);
  const edits = watchEdits(store, options.edits, hooks);
  const viewOf = (opened: SharedState): SubjectView =>
    viewOfDigest(
      copy,
      { values: opened.toJSON(), escalations: opened.escalations() },
      edits.current(),
    );
  try {
    await edits.refresh();
    await readWholeSubject(store, subjectId, copy, options);
    changes.release();
    replica = await openWatchReplica(store, subjectId, reportError);
  } catch (error) {
    changes.close();
    edits.close();
    throw error;
  }
  const opened = replica;
  const stopStateChanges = opened.onChange(() => schedule());

  return {
    view: () => viewOf(opened),
    listen(nextView, nextError) {
      listeners.onView = nextView;
      listeners.onError = nextError;
    },
    async close() {
      if (closed) return;
      closed = true;
      stopStateChanges();
      changes.close();
      edits.close();
      await opened.close();
    },
  };
}

/**
 * The subject's own feed, subscribed before the first read: what arrives during the read is held
 * until `release`, so it lands after what the read returned; later changes are applied as they come.
 */
function watchChanges(
  store: ContextStore,
  subjectId: string,
  copy: SubjectDigest,
  hooks: FeedHooks,
) {
  let loaded = false;
  const buffered: StoreChange[] = [];
  const subscription = store.watch(
    subjectId,
    (change) => {
      if (hooks.isClosed()) return;
      if (!loaded) {
        buffered.push(change);
        return;
      }
      copy.apply(change);
      hooks.onChange();
    },
    { onError: (error) => hooks.onError(error) },
  );
  return {
    /** Applies the changes held during the first read; from now on each is applied on arrival. */
    release(): void {
      for (const change of buffered.splice(0)) copy.apply(change);
      loaded = true;
    },
    close: () => subscription.close(),
  };
}

/** The companion edits subject, if any: its activity read whole again on each of its changes. */
function watchEdits(store: ContextStore, edits: FollowedEdits | undefined, hooks: FeedHooks) {
  let activity: EditActivity | undefined;
  const refresh = async () => {
    if (!edits) return;
    activity = await edits.read();
  };
  const subscription = edits
    ? store.watch(
        edits.subjectId,
        () => {
          if (hooks.isClosed()) return;
          refresh().then(
            () => hooks.onChange(),
            (error: unknown) => hooks.onError(error),
          );
        },
        { onError: (error) => hooks.onError(error) },
      )
    : undefined;
  return {
    /** The edit activity as last read; undefined without an edits subject. */
    current: () => activity,
    refresh,
    close: () => subscription?.close(),
  };
}

/** Folds the subject's timeline into `copy`, oldest first, one page at a time. */
async function readWholeSubject(
  store: ContextStore,
  subjectId: string,
  copy: SubjectDigest,
  options: { signal?: AbortSignal },
): Promise<void> {
  await forEachTimelinePage(
    store,
    subjectId,
    (page) => {
      for (const episode of page.episodes) copy.addEpisode(episode);
      for (const memory of page.memories) copy.addMemory(memory);
    },
    options,
  );
}

/** The one replica for the whole watch: it follows the store itself and imports only new updates. */
function openWatchReplica(
  store: ContextStore,
  subjectId: string,
  onError: (error: unknown) => void,
): Promise<SharedState> {
  return SharedState.open({
    store: readOnlyStore(store),
    subjectId,
    agentId: "shared-ctx-watch",
    live: true,
    onError,
  });
}

/** One call of `emit` a microtask after the first of a burst of changes delivered together. */
function coalesceBursts(isClosed: () => boolean, emit: () => void): () => void {
  let scheduled = false;
  return () => {
    if (scheduled || isClosed()) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      if (isClosed()) return;
      emit();
    });
  };
}
