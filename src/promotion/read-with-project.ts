/**
 * Reading a run together with its project subject: the project's decisions first, highest
 * authority first, with the run's own on top where they legitimately supersede the project's (the
 * same rule a promotion applies). Reads only: nothing is ever written into the project.
 */
import { authorityOf } from "../context/authority.js";
import type { ContextStore, Memory } from "../context/context-store.js";
import {
  byAuthority,
  type PromotionCandidate,
  type PromotionItem,
  planPromotion,
} from "./plan-promotion.js";
import { readSubjectDecisions } from "./read-decisions.js";

/** A run decision and the project decisions on its target that it may not overrule. */
export interface ProjectConflict {
  kind: string;
  target: string;
  /** The project's decisions on the target first, then the run's, oldest first in each. */
  memories: Memory[];
}

/** What {@link layerProjectDecisions} returns. */
export interface ProjectLayer {
  /** The run's superseding decisions, then the project's by authority, then the run's others. */
  decisions: Memory[];
  /** The project decisions among `decisions`, highest authority first, with what their episodes say. */
  projectDecisions: PromotionCandidate[];
  /** Run decisions that conflict with a project decision (one per kind and target). */
  conflicts: ProjectConflict[];
}

function keyOf(memory: Memory): string | undefined {
  const target = memory.metadata.target;
  return typeof target === "string" ? `${memory.kind}\u0000${target}` : undefined;
}

/** A memory as a candidate from its own metadata alone (no episode read). */
function shallowCandidate(memory: Memory): PromotionCandidate {
  const source = memory.metadata.source;
  return {
    memory,
    author: typeof source === "string" ? source : "unknown",
    authority: authorityOf(memory.metadata),
    readMemoryIds: [],
  };
}

/**
 * Orders the run's and the project's decisions as one read, from candidates (pure).
 * @param runDecisions the run's active decisions
 * @param projectDecisions the project's decisions (every status; only active ones are shown)
 */
export function layerDecisions(
  runDecisions: readonly PromotionCandidate[],
  projectDecisions: readonly PromotionCandidate[],
  subjects: { runSubjectId: string; projectSubjectId: string },
): ProjectLayer {
  const plan = planPromotion(runDecisions, projectDecisions, subjects);
  const hidden = new Set<string>();
  const top: Memory[] = [];
  const rest: Memory[] = [];
  const conflicts: ProjectConflict[] = [];
  const place = (item: PromotionItem) => {
    switch (item.status) {
      case "supersedes":
        for (const older of item.supersedes) hidden.add(older.memory.id);
        top.push(item.decision.memory);
        return;
      case "unchanged":
        // The run's own copy stands for the promoted one, so that the run's writers who read it
        // supersede it in the run too; the project's copy is the same decision.
        if (item.promoted.memory.status !== "active") {
          rest.push(item.decision.memory);
          return;
        }
        hidden.add(item.promoted.memory.id);
        top.push(item.decision.memory);
        return;
      case "conflict": {
        const target = item.decision.memory.metadata.target;
        if (typeof target === "string") {
          conflicts.push({
            kind: item.decision.memory.kind,
            target,
            memories: [
              ...item.projectDecisions.map((candidate) => candidate.memory),
              item.decision.memory,
            ],
          });
        }
        rest.push(item.decision.memory);
        return;
      }
      case "new":
      case "rejected":
        rest.push(item.decision.memory);
        return;
    }
  };
  for (const item of plan.items) place(item);
  const shown = byAuthority(
    projectDecisions.filter(
      (candidate) => candidate.memory.status === "active" && !hidden.has(candidate.memory.id),
    ),
  );
  return {
    decisions: [...top, ...shown.map((candidate) => candidate.memory), ...rest],
    projectDecisions: shown,
    conflicts,
  };
}

/**
 * The run's active decisions layered over the project's (see {@link layerDecisions}). The project
 * is read whole (its decisions' authority and promotion sources live in their episodes); the run's
 * episodes (who read what) only when a run decision shares a kind and target with a project one:
 * otherwise no decision of one can overrule one of the other.
 * @param runDecisions the run's active decisions, newest first (as `searchMemories` gives them)
 */
export async function layerProjectDecisions(
  store: ContextStore,
  options: {
    runSubjectId: string;
    projectSubjectId: string;
    runDecisions: readonly Memory[];
    signal?: AbortSignal;
  },
): Promise<ProjectLayer> {
  const subjects = {
    runSubjectId: options.runSubjectId,
    projectSubjectId: options.projectSubjectId,
  };
  const signal = options.signal ? { signal: options.signal } : {};
  // Newest first, as the run's list is.
  const project = (
    await readSubjectDecisions(store, options.projectSubjectId, signal)
  ).decisions.reverse();
  const projectKeys = new Set(
    project.flatMap((candidate) =>
      candidate.memory.status === "active" ? [keyOf(candidate.memory)] : [],
    ),
  );
  const overlaps = options.runDecisions.some((memory) => {
    const key = keyOf(memory);
    return key !== undefined && projectKeys.has(key);
  });
  if (!overlaps) {
    return layerDecisions(options.runDecisions.map(shallowCandidate), project, subjects);
  }
  const run = await readSubjectDecisions(store, options.runSubjectId, signal);
  const byId = new Map(run.decisions.map((candidate) => [candidate.memory.id, candidate]));
  const runCandidates = options.runDecisions.map(
    (memory) => byId.get(memory.id) ?? shallowCandidate(memory),
  );
  return layerDecisions(runCandidates, project, subjects);
}

/** The project's decisions as a section of the assembled context, after its task header. */
export function withProjectSection(
  assembledContext: string,
  task: string,
  projectSubjectId: string,
  projectDecisions: readonly PromotionCandidate[],
): string {
  if (projectDecisions.length === 0) return assembledContext;
  const lines = projectDecisions.map(({ memory, author, authority }) => {
    const target = memory.metadata.target;
    const about = typeof target === "string" ? ` (${target})` : "";
    return `- ${memory.content}${about} [${author}, ${authority}]`;
  });
  const section = `\n## Project decisions (${projectSubjectId})\n${lines.join("\n")}\n`;
  const header = `## Task\n${task}\n`;
  return assembledContext.startsWith(header)
    ? `${header}${section}${assembledContext.slice(header.length)}`
    : `${assembledContext}${section}`;
}
