import type { BuildResult } from "../../../agents/brain.js";
import type { ContextStore, Episode } from "../../../context/context-store.js";
import type { Clock } from "../../clock.js";
import { resultReport } from "../read-tokens.js";
import { moduleOfTask } from "../task-modules.js";
import { type AgentReplicas, projectNamespace } from "./replicas.js";

/** Who wrote the inventory memories: the project as it was before the run. */
export const projectSource = "project";

/** The run's store, and the clock every store call goes through (its `exclusive`). */
export interface RunStore {
  store: ContextStore;
  /** The run id: the subject every agent shares. */
  subjectId: string;
  clock: Clock;
}

/** The project as it was before the run: one decision per existing module, in use. */
export async function seedInventory(run: RunStore, inventory: readonly string[]): Promise<void> {
  if (inventory.length === 0) return;
  const { store, subjectId } = run;
  await run.clock.exclusive(async () => {
    await store.createEpisodesBatch(
      inventory.map((module) => ({
        subjectId,
        source: projectSource,
        type: "architectural_decision",
        payload: {
          content: `${module} is an existing module, in use.`,
          target: module,
          value: "in-use",
        },
      })),
    );
    await store.compileMemories(subjectId);
  });
}

/**
 * Episodes of a subject, all of them, 100 a page (Statewave's page): by cursor, each page one
 * indexed read; by offset on a store whose timeline gives no cursor (`nextCursor` undefined).
 */
async function allEpisodes(store: ContextStore, subjectId: string): Promise<Episode[]> {
  const episodes: Episode[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page = await store.getTimeline(subjectId, {
      limit: 100,
      ...(cursor === null ? { offset: episodes.length } : { cursor }),
    });
    episodes.push(...page.episodes);
    if (page.nextCursor === null) return episodes;
    if (page.nextCursor === undefined && page.episodes.length < 100) return episodes;
    cursor = page.nextCursor ?? null;
  }
}

/** The run's whole timeline, read in the run's fixed order. */
export function runEpisodes(run: RunStore): Promise<Episode[]> {
  return run.clock.exclusive(() => allEpisodes(run.store, run.subjectId));
}

/**
 * A build, on the record: the Coder's implementation note in its context, and (what merges
 * cleanly: concurrent appends and additions are all kept) a line in the project's notes and the
 * module in its tags. The agent's context and replica are looked up as each write runs.
 */
export async function recordResult(
  run: RunStore & { replicas: AgentReplicas },
  agentId: string,
  result: BuildResult,
): Promise<void> {
  const { clock, replicas } = run;
  await clock.exclusive(() =>
    replicas.context(agentId).decide(agentId, resultReport(result.module, agentId), {
      kind: "implementation_note",
      target: result.module,
      payload: { module: result.module, tokens: result.tokens, ms: result.ms },
    }),
  );
  const state = replicas.state(agentId);
  await clock.exclusive(() =>
    state.put(projectNamespace, "notes", `${agentId} built ${result.module}`),
  );
  await clock.exclusive(() => state.put(projectNamespace, "tags", [result.module]));
}

/**
 * What a restarted agent built before its crash, on the task's module: its implementation notes
 * in the store (the ranked context carries them; this reads them back by name).
 */
export async function ownBuildsOf(run: RunStore, agentId: string, task: string): Promise<string[]> {
  const module = moduleOfTask(task);
  if (module === undefined) return [];
  const episodes = await runEpisodes(run);
  return episodes.some(
    (episode) =>
      episode.type === "implementation_note" &&
      episode.source === agentId &&
      episode.payload.module === module,
  )
    ? [module]
    : [];
}

/** Every build recorded among `episodes` (implementation notes), for the Reviewer. */
export function recordedResults(episodes: readonly Episode[]): BuildResult[] {
  const results: BuildResult[] = [];
  for (const episode of episodes) {
    const { payload } = episode;
    if (episode.type === "implementation_note" && typeof payload.module === "string") {
      results.push({
        module: payload.module,
        agentId: episode.source,
        tokens: Number(payload.tokens),
        ms: Number(payload.ms),
      });
    }
  }
  return results;
}
