import { decisionsFromText } from "../agents/decompose-task.js";
import type { Memory } from "../context/context-store.js";
import type { EditActivity, EditClaim } from "./edit-activity.js";
import type { HookSettings } from "./project-config.js";

/**
 * The rule every edit hook applies, as one pure function: may `agent` change a file of `module`
 * now? Refused (or put to the person, by configuration) when an active decision by someone else
 * retires the module, another session holds a live claim on it, or it is in open dispute; else
 * allowed, with the decisions about the module the session has not been shown yet.
 */

/** A decision as the hooks cite it. */
export interface DecisionRef {
  readonly id: string;
  /** The agent (or person) who published it. */
  readonly author: string;
  /** When it was published (ISO). */
  readonly at: string;
  readonly content: string;
  readonly target?: string;
}

/** One side of a dispute. */
export interface DisputeSide {
  readonly agent: string;
  readonly says: string;
}

/** Why an edit conflicts with the shared context. */
export type EditConflict =
  | { readonly type: "retired"; readonly decision: DecisionRef }
  | { readonly type: "claimed"; readonly claim: EditClaim }
  | {
      readonly type: "disputed";
      /** What is disputed: the module, or the shared-state field (`modules/<module>`). */
      readonly about: string;
      readonly sides: readonly DisputeSide[];
      /** The shared-state escalation to resolve, when the dispute is one. */
      readonly escalationId?: string;
    };

/** An open shared-state escalation about a module, as read from its announcement. */
export interface OpenEscalation {
  readonly id: string;
  readonly about: string;
  readonly sides: readonly DisputeSide[];
}

/** How a person settled who holds a module (the latest resolution of `modules/<module>`). */
export interface ClaimSettlement {
  /** The agent the module was settled for, when the resolution names one. */
  readonly holder?: string;
  readonly at: string;
}

/** What {@link decideEdit} weighs. */
export interface EditFacts {
  readonly module: string;
  /** The file, relative to the project root (for the reason text). */
  readonly path: string;
  readonly agent: string;
  /** The subject's active decisions (`architectural_decision` memories), any order. */
  readonly decisions: readonly Memory[];
  readonly activity: EditActivity;
  readonly escalations: readonly OpenEscalation[];
  readonly settlement?: ClaimSettlement;
  readonly settings: HookSettings;
}

/** What an edit gets. */
export interface EditVerdict {
  readonly decision: "allow" | "deny" | "ask";
  readonly module: string;
  readonly path: string;
  readonly conflicts: readonly EditConflict[];
  /** For `deny`/`ask`: the reason the agent (or the person) reads, naming who decided what, when. */
  readonly reason?: string;
  /** Decisions about the module the session had not been shown before this edit. */
  readonly unread: readonly DecisionRef[];
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

/** The same module name, whatever the case and separators (`Legacy Billing` = `legacy-billing`). */
function sameName(a: string, b: string): boolean {
  const fold = (name: string) => name.toLowerCase().replace(/[\s_]+/g, "-");
  return fold(a) === fold(b);
}

/**
 * Whether two agent ids are one line of work: the same id, or a Claude Code session and a
 * subagent it started (`<session>/<agent_id>`, see hookAgentId in hook-input.ts), or two levels of
 * that. A subagent continues its parent's work, so neither's claim or retiring decision holds the
 * other back; two subagents of one session are two workers, and their edits of one module collide
 * as two sessions' do.
 */
export function sameLine(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/** A decision as the hooks cite it. */
export function decisionRef(memory: Memory): DecisionRef {
  const target = text(memory.metadata.target);
  return {
    id: memory.id,
    author: text(memory.metadata.source) ?? "unknown",
    at: memory.createdAt,
    content: memory.content,
    ...(target ? { target } : {}),
  };
}

/**
 * The decisions the rules read in a memory's words, read once per memory: a session start weighs
 * every decision against every module, and the reading is the costly part.
 */
const readingCache = new WeakMap<Memory, ReturnType<typeof decisionsFromText>>();

function readingsOf(memory: Memory): ReturnType<typeof decisionsFromText> {
  let readings = readingCache.get(memory);
  if (readings === undefined) {
    readings = decisionsFromText(memory.content);
    readingCache.set(memory, readings);
  }
  return readings;
}

/**
 * What a decision says about a module: `deprecate` (retire, remove, drop…), `keep`, `mentions`
 * (about it, no verdict the rules read), or undefined when it is not about the module.
 */
export function stanceOn(
  memory: Memory,
  module: string,
): "deprecate" | "keep" | "mentions" | undefined {
  const readings = readingsOf(memory);
  const named = readings.find((reading) => sameName(reading.target, module));
  if (named) return named.value;
  const target = text(memory.metadata.target);
  if (target === undefined || !sameName(target, module)) return undefined;
  // Targeted at the module in words the rules read about another name ("Retire the old billing").
  return readings.length === 1 ? readings[0]?.value : "mentions";
}

function contradicted(memory: Memory): string[] {
  const ids = memory.metadata.contradicts;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
}

/** Newest first, by creation time then id (stores give no other order across processes). */
function newestFirst(a: Memory, b: Memory): number {
  return a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1;
}

function utc(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

/** Decides whether `facts.agent` may edit `facts.path` now. Pure and deterministic. */
export function decideEdit(facts: EditFacts): EditVerdict {
  const { module, agent } = facts;
  const about = facts.decisions
    .flatMap((memory) => {
      const stance = stanceOn(memory, module);
      return stance === undefined ? [] : [{ memory, stance }];
    })
    .sort((a, b) => newestFirst(a.memory, b.memory));
  const conflicts: EditConflict[] = [];

  // Active decisions on the module written without knowing each other's (compile kept both).
  const ids = new Set(about.map((entry) => entry.memory.id));
  const contradicting = about.filter((entry) =>
    contradicted(entry.memory).some((id) => ids.has(id)),
  );
  if (contradicting.length > 0) {
    const sides = about.filter(
      (entry) =>
        contradicting.includes(entry) ||
        contradicting.some((other) => contradicted(other.memory).includes(entry.memory.id)),
    );
    conflicts.push({
      type: "disputed",
      about: module,
      sides: sides.map((entry) => ({
        agent: decisionRef(entry.memory).author,
        says: entry.memory.content,
      })),
    });
  } else {
    // The newest verdict stands: a "keep" published after a "retire" un-retires the module.
    const verdict = about.find((entry) => entry.stance === "deprecate" || entry.stance === "keep");
    if (verdict?.stance === "deprecate" && !sameLine(decisionRef(verdict.memory).author, agent)) {
      conflicts.push({ type: "retired", decision: decisionRef(verdict.memory) });
    }
  }

  for (const escalation of facts.escalations) {
    conflicts.push({
      type: "disputed",
      about: escalation.about,
      sides: escalation.sides,
      escalationId: escalation.id,
    });
  }

  const settlement = facts.settlement;
  for (const claim of facts.activity.claims) {
    if (!sameName(claim.module, module) || sameLine(claim.agent, agent)) continue;
    // A person settled the module after this claim: only the holder's later edits count.
    if (settlement && claim.at <= settlement.at && claim.agent !== settlement.holder) continue;
    if (settlement && settlement.holder === agent && claim.at <= settlement.at) continue;
    conflicts.push({ type: "claimed", claim });
  }

  const lastShown = [
    facts.activity.sessionStarts.get(agent),
    ...facts.activity.claims
      .filter((claim) => claim.agent === agent && sameName(claim.module, module))
      .map((claim) => claim.at),
  ]
    .filter((at): at is string => at !== undefined)
    .sort()
    .at(-1);
  const unread = about
    .filter((entry) => lastShown === undefined || entry.memory.createdAt > lastShown)
    .map((entry) => decisionRef(entry.memory));

  if (conflicts.length === 0) {
    return { decision: "allow", module, path: facts.path, conflicts, unread };
  }
  return {
    decision: facts.settings.onConflict,
    module,
    path: facts.path,
    conflicts,
    reason: conflictReason(facts.path, module, conflicts),
    unread,
  };
}

/** The reason an agent reads when an edit is refused: who decided what, when, and what to do. */
export function conflictReason(
  path: string,
  module: string,
  conflicts: readonly EditConflict[],
): string {
  const lines = [
    `shared-ctx: ${path} belongs to module ${module}, and the shared context says not to edit it now.`,
  ];
  for (const conflict of conflicts) {
    switch (conflict.type) {
      case "retired": {
        const { decision } = conflict;
        lines.push(
          `- Retired: ${decision.author} decided "${decision.content}" (decision ${decision.id}, ${utc(decision.at)}).`,
          `  Instead: do not build on ${module}; put the work where that decision points. If ${module} must change, ask a person to publish a decision that keeps it (check_shared_decisions, then publish_decision "Keep ${module}"), then retry.`,
        );
        break;
      }
      case "claimed": {
        const { claim } = conflict;
        lines.push(
          `- Claimed: session ${claim.agent} is working on ${module} (${claim.description}, ${utc(claim.at)}; its claim lapses at ${utc(claim.expiresAt)}).`,
          `  Instead: work on another module, or coordinate with ${claim.agent} and retry after ${utc(claim.expiresAt)}.`,
        );
        break;
      }
      case "disputed": {
        const sides = conflict.sides.map((side) => `${side.agent}: "${side.says}"`).join(" vs ");
        lines.push(
          `- Disputed: ${conflict.about} is in open dispute (${sides}).`,
          conflict.escalationId
            ? `  Instead: wait for a person to settle it (MCP resolve_escalation ${conflict.escalationId}); work on something else meanwhile.`
            : `  Instead: wait for a person to settle it (a decision that supersedes both); work on something else meanwhile.`,
        );
        break;
      }
    }
  }
  return lines.join("\n");
}

/** The context an allowed edit adds: the decisions about its module the session had not seen. */
export function unreadContext(module: string, unread: readonly DecisionRef[]): string | undefined {
  if (unread.length === 0) return undefined;
  return [
    `shared-ctx: decisions about module ${module} you have not seen yet:`,
    ...unread.map((decision) => `- ${decision.author} (${utc(decision.at)}): ${decision.content}`),
  ].join("\n");
}
