import type { Memory, SearchMemoriesOptions } from "../context-store.js";
import type { StatewaveClient } from "./statewave-client.js";
import { statewaveMemoryKinds } from "./statewave-knowledge.js";

/** `StatewaveStore.searchMemories` over its client, typing what the server answered. */

type Signal = { signal?: AbortSignal };

/** Statewave's search limit (contract §5.5): the widest window a kind fallback can read. */
const maxSearchLimit = 100;

function signalOf(options: Signal | undefined): Signal {
  return options?.signal ? { signal: options.signal } : {};
}

/** What the search uses of its store: the client, and the store's typing of the subject's memories. */
export interface SearchHost {
  client: StatewaveClient;
  typed(memories: readonly Memory[]): Promise<Memory[]>;
}

/**
 * Active memories, newest first, by shared-ctx kind. A kind of ours the server does not index
 * (a real Statewave files decisions under `episode_summary`) is found by reading the newest
 * memories and typing them here.
 */
export async function searchTyped(
  host: SearchHost,
  subjectId: string,
  options: SearchMemoriesOptions & Signal,
): Promise<Memory[]> {
  const limit = options.limit ?? 20;
  // The client sends neither an `undefined` query nor an unset `semantic`.
  const base = { subjectId, query: options.q, semantic: options.semantic };
  const kind = options.kind;
  let memories: Memory[] = [];
  if (kind !== undefined && !statewaveMemoryKinds.has(kind)) {
    // `serve` indexes our kinds; a real Statewave answers this with nothing.
    memories = (await host.client.searchMemories({ ...base, kind, limit }, signalOf(options)))
      .memories;
  }
  if (memories.length === 0 || kind === undefined || statewaveMemoryKinds.has(kind)) {
    const wide = kind === undefined ? limit : maxSearchLimit;
    memories = (
      await host.client.searchMemories(
        {
          ...base,
          ...(kind !== undefined && statewaveMemoryKinds.has(kind) ? { kind } : {}),
          limit: wide,
        },
        signalOf(options),
      )
    ).memories;
  }
  const typed = await typedHits(host, memories, subjectId, options);
  return typed
    .filter((memory) => memory.status === "active")
    .filter((memory) => kind === undefined || memory.kind === kind)
    .slice(0, limit);
}

/**
 * The hits of a search, typed and resolved. Client-side supersession (a server that keeps no
 * metadata, v0.7.1) needs the newer memory beside the older: a query returns only the memories
 * whose words match, so the decision that overrules a hit (a ruling, in other words) would be
 * missing and the hit would stay active. With a query, the rule runs over the hits and the
 * subject's newest summaries together, and the hits are kept.
 */
async function typedHits(
  host: SearchHost,
  hits: readonly Memory[],
  subjectId: string,
  options: SearchMemoriesOptions & Signal,
): Promise<Memory[]> {
  const untyped = (memory: Memory) =>
    memory.kind === "episode_summary" && Object.keys(memory.metadata).length === 0;
  if (options.q === undefined || !hits.some(untyped)) return host.typed(hits);
  const newest = (
    await host.client.searchMemories(
      { subjectId, kind: "episode_summary", limit: maxSearchLimit },
      signalOf(options),
    )
  ).memories;
  const hitIds = new Set(hits.map((memory) => memory.id));
  const together = [...hits, ...newest.filter((memory) => !hitIds.has(memory.id))];
  const resolved = await host.typed(together);
  return resolved.filter((memory) => hitIds.has(memory.id));
}
