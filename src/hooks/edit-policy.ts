import { decisionsFromText } from "../agents/decompose-task.js";
import { type Authority, authorityOf, compareAuthority } from "../context/authority.js";
import { retractsKey } from "../context/compile-memories.js";
import type { Memory } from "../context/context-store.js";
import { type StatedEffect, statedEffectOf } from "../context/decision-effect.js";
import type { EditActivity, EditClaim } from "./edit-activity.js";
import type { HookSettings } from "./project-config.js";

/**
 * The rule every edit hook applies, as one pure function: may `agent` change a file of `module`
 * now? Refused (or put to the person, by configuration) when the standing decision about the
 * module retires or replaces it (and is someone else's) or freezes it, another session holds a
 * live claim on it, or it is in open dispute; else allowed, with the decisions about the module
 * the session has not been shown yet.
 *
 * A decision's effect is read from `metadata.effect` (see decision-effect.ts); its wording only
 * when it states none. Authority orders them as the store does: only the decisions of the highest
 * class about the module count, so an agent's newer `retire` never lifts a person's `keep`, nor
 * an agent's `keep` a person's `freeze`.
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
  /** How it was established, when not an agent's (`user`: a person's). */
  readonly authority?: Authority;
  /** For a `replace`: what replaces the module. */
  readonly replacement?: string;
}

/** One side of a dispute. */
export interface DisputeSide {
  readonly agent: string;
  readonly says: string;
}

/** Why an edit conflicts with the shared context. */
export type EditConflict =
  | { readonly type: "retired"; readonly decision: DecisionRef }
  | { readonly type: "frozen"; readonly decision: DecisionRef }
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
  const authority = authorityOf(memory.metadata);
  const replacement = statedEffectOf(memory.metadata)?.replacement;
  return {
    id: memory.id,
    author: text(memory.metadata.source) ?? "unknown",
    at: memory.createdAt,
    content: memory.content,
    ...(target ? { target } : {}),
    ...(authority !== "agent" ? { authority } : {}),
    ...(replacement ? { replacement } : {}),
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

/** A text folded to lower-case words joined by `-`, framed by `-` (for whole-name matching). */
function folded(words: string): string {
  return `-${words
    .toLowerCase()
    .replace(/[^a-z0-9@./]+/g, "-")
    .replace(/^-+|-+$/g, "")}-`;
}

const freezeWords = /\b(?:freeze|frozen)\b|\bno (?:new |more |further )?(?:changes|edits)\b/i;
const retireWords =
  /\b(?:do not|don't|never|stop)\s+(?:touch|touching|edit|editing|extend|extending|build on|building on|work on|working on)\b|\bbeing (?:deleted|removed|retired|replaced|dropped|phased out)\b|\b(?:retire|deprecate|sunset|remove|delete|drop|phase out)\b/i;
const replacedBy =
  /\b([\w@./-]+)\s+(?:replaces|supersedes|takes over from)\s+(?:it|this|them)\b|\breplaced?\s+(?:by|with)\s+([\w@./-]+)/i;

/**
 * What a clause naming `module` says in words the sentence reader does not take ("Retire
 * legacy-billing: invoices replaces it.", "Do not touch legacy-billing any more, it is being
 * deleted", "Freeze legacy-billing: no new changes"), or undefined. Clauses end at `.`, `;`, `!`
 * or `?`, so "Retire legacy-cache; legacy-billing stays" says nothing about legacy-billing.
 */
function phrasedEffect(content: string, module: string): StatedEffect | undefined {
  const name = folded(module);
  for (const clause of content.split(/[.;!?](?:\s|$)/)) {
    if (!folded(clause).includes(name)) continue;
    if (freezeWords.test(clause)) return { effect: "freeze" };
    if (!retireWords.test(clause)) continue;
    const match = replacedBy.exec(clause);
    const replacement = (match?.[1] ?? match?.[2])?.replace(/[.,:]+$/, "");
    return replacement && !sameName(replacement, module)
      ? { effect: "replace", replacement }
      : { effect: "retire" };
  }
  return undefined;
}

function fromReading(value: "deprecate" | "keep"): StatedEffect {
  return { effect: value === "deprecate" ? "retire" : "keep" };
}

/**
 * What a decision does to `module`: its stated effect when it states one about the module
 * (`metadata.effect` with `metadata.target`); else what its wording says; `mentions` when it is
 * about the module without a verdict the rules read; undefined when it is not about the module.
 */
export function effectOn(memory: Memory, module: string): StatedEffect | "mentions" | undefined {
  // A retraction stands for no decision ("Retracted: Retire legacy-billing…" retires nothing).
  if (text(memory.metadata[retractsKey]) !== undefined) return undefined;
  const target = text(memory.metadata.target);
  const targeted = target !== undefined && sameName(target, module);
  const stated = statedEffectOf(memory.metadata);
  const readings = readingsOf(memory);
  const named = readings.find((reading) => sameName(reading.target, module));
  if (stated !== undefined) {
    if (targeted) return stated;
    // Stated about another target: at most a mention of this one.
    return named || phrasedEffect(memory.content, module) ? "mentions" : undefined;
  }
  if (named) return fromReading(named.value);
  const phrased = phrasedEffect(memory.content, module);
  // The clause rule is coarse ("Retire legacy-billing: invoices move to payments" names payments
  // in a retiring clause): a decision targeted at another module only mentions this one.
  if (phrased) return target === undefined || targeted ? phrased : "mentions";
  if (!targeted) return undefined;
  // Targeted at the module in words the rules read about another name ("Retire the old billing").
  const only = readings.length === 1 ? readings[0] : undefined;
  return only ? fromReading(only.value) : "mentions";
}

/**
 * What a decision says about a module, in the older three words: `deprecate` (retire, replace),
 * `keep`, `freeze`, `mentions`, or undefined when it is not about the module (see {@link effectOn}).
 */
export function stanceOn(
  memory: Memory,
  module: string,
): "deprecate" | "keep" | "freeze" | "mentions" | undefined {
  const effect = effectOn(memory, module);
  if (effect === undefined || effect === "mentions") return effect;
  return effect.effect === "retire" || effect.effect === "replace" ? "deprecate" : effect.effect;
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

/** A decision about the module and what it does to it. */
interface AboutEntry {
  readonly memory: Memory;
  readonly effect: StatedEffect | "mentions";
}

/**
 * The conflicts the decisions about a module raise for `agent`. Only the highest authority among
 * the decisions with an effect counts (a lower one never overrules it, as in the store); among
 * those, two written without knowing each other's (compile kept both, `metadata.contradicts`) are
 * a dispute; else the newest stands: `retire`/`replace` refuse everyone but its author's line of
 * work, `freeze` refuses everyone, `keep` lifts both.
 */
function standingConflicts(
  about: readonly AboutEntry[],
  agent: string,
  module: string,
): EditConflict[] {
  const verdicts = about.filter((entry) => entry.effect !== "mentions");
  const top = verdicts
    .map((entry) => authorityOf(entry.memory.metadata))
    .sort((a, b) => compareAuthority(b, a))[0];
  const standing = verdicts.filter((entry) => authorityOf(entry.memory.metadata) === top);
  const ids = new Set(standing.map((entry) => entry.memory.id));
  const contradicting = standing.filter((entry) =>
    contradicted(entry.memory).some((id) => ids.has(id)),
  );
  if (contradicting.length > 0) {
    const sides = standing.filter(
      (entry) =>
        contradicting.includes(entry) ||
        contradicting.some((other) => contradicted(other.memory).includes(entry.memory.id)),
    );
    return [
      {
        type: "disputed",
        about: module,
        sides: sides.map((entry) => ({
          agent: decisionRef(entry.memory).author,
          says: entry.memory.content,
        })),
      },
    ];
  }
  const newest = standing[0];
  if (newest === undefined || newest.effect === "mentions") return [];
  const decision = decisionRef(newest.memory);
  switch (newest.effect.effect) {
    case "freeze":
      return [{ type: "frozen", decision }];
    case "retire":
    case "replace":
      return sameLine(decision.author, agent) ? [] : [{ type: "retired", decision }];
    case "keep":
      return [];
  }
}

/** Decides whether `facts.agent` may edit `facts.path` now. Pure and deterministic. */
export function decideEdit(facts: EditFacts): EditVerdict {
  const { module, agent } = facts;
  const about = facts.decisions
    .flatMap((memory) => {
      const effect = effectOn(memory, module);
      return effect === undefined ? [] : [{ memory, effect }];
    })
    .sort((a, b) => newestFirst(a.memory, b.memory));
  const conflicts: EditConflict[] = [...standingConflicts(about, agent, module)];

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

/** The author, and "a person" when the decision is a person's (authority `user`). */
function byWhom(decision: DecisionRef): string {
  return decision.authority === "user" ? `${decision.author} (a person)` : decision.author;
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
        const where = decision.replacement
          ? `put the work in ${decision.replacement}, which replaces it`
          : "put the work where that decision points";
        lines.push(
          `- Retired: ${byWhom(decision)} decided "${decision.content}" (decision ${decision.id}, ${utc(decision.at)}).`,
          `  Instead: do not build on ${module}; ${where}. If ${module} must change, ask a person to publish a decision that keeps it (\`shared-ctx decide "Keep ${module}" --target ${module} --effect keep\`), then retry.`,
        );
        break;
      }
      case "frozen": {
        const { decision } = conflict;
        lines.push(
          `- Frozen: ${byWhom(decision)} decided "${decision.content}" (decision ${decision.id}, ${utc(decision.at)}): no edits to ${module} by anyone until a later decision lifts it.`,
          `  Instead: work on something else, or ask a person to lift the freeze (\`shared-ctx decide "Unfreeze ${module}" --target ${module} --effect keep\`, or \`shared-ctx retract ${decision.id}\`), then retry.`,
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
