import { retractsKey } from "../context/compile-memories.js";
import type { ContextStore, Memory } from "../context/context-store.js";
import { decisionKind } from "../context/decision-life.js";
import type { CliDeps } from "./cli-deps.js";
import { UsageError } from "./fatal-error.js";
import {
  type HookCommandOptions,
  type HookProject,
  hookStoreOptions,
  resolveHookProject,
} from "./hook-runtime.js";

/**
 * What the people's decision commands (`decide`, `retract`, `decisions`) share: the project's
 * store and subject, found as the hooks find them (any worktree, any subfolder), and the subject's
 * active decisions read completely.
 */

/** The store flags and project flags of the decision commands. */
export type DecisionStoreOptions = Omit<HookCommandOptions, "agent">;

/** Runs `use` on the project's store (the hooks' store) and closes it afterwards. */
export async function withProjectStore<T>(
  options: DecisionStoreOptions,
  deps: CliDeps,
  use: (store: ContextStore, setup: HookProject) => Promise<T>,
): Promise<T> {
  const setup = resolveHookProject(options, deps);
  const { openContextStore } = await import("../context/open-context-store.js");
  const store = await openContextStore(hookStoreOptions(options, deps, setup));
  try {
    return await use(store, setup);
  } finally {
    await store.close();
  }
}

/**
 * Every active decision of the subject (kind `architectural_decision`), oldest first: an exact read
 * paged to the end, never a top-N, since what a person decides depends on it. A retraction's memory
 * stands for no decision and is left out.
 */
export async function activeDecisions(
  store: ContextStore,
  subjectId: string,
  signal?: AbortSignal,
): Promise<Memory[]> {
  // One indexed read of the active decisions (complete, paged to the end), never the whole
  // timeline with its episodes; oldest first, as the timeline lists them.
  const { listAllMemories } = await import("../context/memory-query.js");
  const newestFirst = await listAllMemories(store, subjectId, {
    kind: decisionKind,
    ...(signal ? { signal } : {}),
  });
  return newestFirst.reverse().filter((memory) => memory.metadata[retractsKey] === undefined);
}

/**
 * The one active decision whose id is `idOrPrefix` or starts with it.
 * @throws UsageError naming the argument when none or several match
 */
export function decisionByPrefix(decisions: readonly Memory[], idOrPrefix: string): Memory {
  const exact = decisions.find((memory) => memory.id === idOrPrefix);
  if (exact) return exact;
  const matches = decisions.filter((memory) => memory.id.startsWith(idOrPrefix));
  if (matches.length === 1 && matches[0]) return matches[0];
  if (matches.length === 0) {
    throw new UsageError(
      `ID ${JSON.stringify(idOrPrefix)}: no active decision has that id or prefix (shared-ctx decisions lists them)`,
    );
  }
  throw new UsageError(
    `ID ${JSON.stringify(idOrPrefix)}: ${matches.length} active decisions start with it (${matches
      .map((memory) => memory.id)
      .join(", ")}); give more of the id`,
  );
}

/** Who a person is, for the decisions they record: `--as`, else $SHARED_CTX_USER, $USER, "person". */
export function personName(flag: string | undefined, env: CliDeps["env"]): string {
  return flag || env.SHARED_CTX_USER || env.USER || env.LOGNAME || "person";
}
