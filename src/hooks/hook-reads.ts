import type { Memory } from "../context/context-store.js";
import { listAllMemories } from "../context/memory-query.js";
import { listOnTargets } from "../context/reads-by-target.js";
import {
  type EditActivity,
  editsSubjectOf,
  readEditActivity,
  sessionTarget,
} from "./edit-activity.js";
import type { EditHookContext } from "./edit-hooks.js";
import type { ClaimSettlement, OpenEscalation } from "./edit-policy.js";
import { modulesNamespace } from "./module-escalation.js";

/**
 * What the edit hooks read from the store before they judge an edit: each question asked by an
 * indexed, exact read about the modules in question, so its cost follows those modules and never
 * the subject's history (issue 36).
 */

/** How many of the newest decisions a session start lists in full. */
export const shownAtStart = 30;

/** The decisions and disputes read once per hook call. */
export interface SubjectFacts {
  readonly decisions: Memory[];
  /** More active decisions than `decisions` holds (a session start reads the newest page only). */
  readonly moreDecisions: boolean;
  readonly activity: EditActivity;
  readonly escalationMemories: Memory[];
}

/** The kind of memory a decision compiles into. */
const decisionKind = "architectural_decision";

/**
 * The targets a decision about `module` can carry: its name as configured, lower-cased, and with
 * `-`, `_` or a space between its words (the policy's `sameName` reads them all as one module).
 */
export function targetSpellings(module: string): string[] {
  const spellings = new Set<string>();
  for (const name of [module, module.toLowerCase()]) {
    const words = name.split(/[\s_-]+/);
    for (const separator of ["-", "_", " "]) spellings.add(words.join(separator));
    spellings.add(name);
  }
  return [...spellings];
}

/**
 * The active decisions about `modules`, from indexed reads whose cost follows the modules, not the
 * subject's history, each paged to the end: every decision targeted at one of them, and every
 * decision without a target (whose words alone can name a module: the policy reads them). A
 * decision targeted at another module is about that one.
 */
async function decisionsAbout(
  context: EditHookContext,
  modules: readonly string[],
): Promise<Memory[]> {
  const { store, subjectId, signal } = context;
  const options = { kind: decisionKind, ...(signal ? { signal } : {}) };
  const [targeted, untargeted] = await Promise.all([
    listOnTargets(store, subjectId, modules.flatMap(targetSpellings), options),
    listAllMemories(store, subjectId, { ...options, untargeted: true }),
  ]);
  return [...targeted, ...untargeted];
}

/**
 * The decisions, claims and disputes one hook call weighs, each from an indexed read about
 * `modules` (never the subject's newest N): the decisions about them (see {@link decisionsAbout}),
 * the claims and session starts recorded on them, and the escalations of their registers.
 * Without `modules` (a session start): the newest decisions (one page, {@link shownAtStart}), every
 * claim and every escalation.
 */
export async function readFacts(
  context: EditHookContext,
  modules?: readonly string[],
): Promise<SubjectFacts> {
  const { store, subjectId, signal } = context;
  const now = (context.now ?? Date.now)();
  const options = signal ? { signal } : {};
  const summaries = { kind: "episode_summary", ...options };
  const [decisions, editMemories, escalationMemories] = await Promise.all([
    modules === undefined
      ? store.listMemories(subjectId, { kind: decisionKind, limit: shownAtStart, ...options })
      : decisionsAbout(context, modules).then((memories) => ({ memories, nextCursor: null })),
    modules === undefined
      ? listAllMemories(store, editsSubjectOf(subjectId), summaries)
      : listOnTargets(store, editsSubjectOf(subjectId), [...modules, sessionTarget], summaries),
    // Escalation announcements and resolutions of module registers (compiled summaries).
    modules === undefined
      ? listAllMemories(store, subjectId, { ...summaries, targetPrefix: `${modulesNamespace}/` })
      : listOnTargets(
          store,
          subjectId,
          modules.map((module) => `${modulesNamespace}/${module}`),
          summaries,
        ),
  ]);
  return {
    decisions: decisions.memories,
    moreDecisions: decisions.nextCursor !== null,
    activity: readEditActivity(editMemories, {
      claimMinutes: context.project.hooks.claimMinutes,
      now,
    }),
    escalationMemories,
  };
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

/** The open escalations and the latest settlement of `modules/<module>`, from their memories. */
export function registerFacts(
  memories: readonly Memory[],
  module: string,
): { escalations: OpenEscalation[]; settlement?: ClaimSettlement } {
  const target = `${modulesNamespace}/${module}`;
  const escalations: OpenEscalation[] = [];
  let settlement: ClaimSettlement | undefined;
  for (const memory of memories) {
    if (text(memory.metadata.target) !== target) continue;
    const id = text(memory.metadata.escalationId);
    if (id === undefined) continue;
    if (memory.metadata.episodeType === "escalation") {
      // "Disputed modules/x: different values written concurrently (a: "claimed-by:a"; b: …)".
      const sides = [...memory.content.matchAll(/([^(;]+?): "((?:[^"\\]|\\.)*)"/g)].map(
        (match) => ({ agent: (match[1] ?? "").trim(), says: match[2] ?? "" }),
      );
      escalations.push({ id, about: target, sides });
    } else if (memory.metadata.episodeType === "escalation_resolution") {
      const holder = /to "claimed-by:((?:[^"\\]|\\.)*)"/.exec(memory.content)?.[1];
      if (settlement === undefined || settlement.at < memory.createdAt) {
        settlement = { ...(holder !== undefined ? { holder } : {}), at: memory.createdAt };
      }
    }
  }
  return { escalations, ...(settlement ? { settlement } : {}) };
}
