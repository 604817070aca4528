import type { Authority } from "../../context/authority.js";
import type { Timeline } from "../../context/context-store.js";
import type { EditActivity } from "../../hooks/edit-activity.js";
import type { SharedStateSnapshot } from "../data/read-shared-state.js";
import type { AgentDirectory } from "./agent-directory.js";
import { humanizeEncodings } from "./humanize-encodings.js";
import { type DecisionDigest, SubjectDigest } from "./subject-digest.js";

/** A decision as the watch view shows it, with what replaced it when it was superseded. */
export interface DecisionEntry {
  readonly id: string;
  readonly target?: string;
  readonly author: string;
  /** How it was established, when not the default (`agent`): `user` for a person's decision. */
  readonly authority?: Authority;
  readonly content: string;
  readonly at: string;
  /** For a superseded decision: the active one on the same target (or by the same author). */
  readonly supersededBy?: {
    readonly author: string;
    readonly content: string;
    readonly at: string;
  };
}

/** Work someone has claimed and not finished (from a run's claims and builds). */
export interface ClaimEntry {
  readonly module: string;
  readonly agent: string;
  /** "claimed", "building". */
  readonly state: string;
}

/** An edit the Claude Code hooks refused (or put to the person), latest per session and module. */
export interface DenialEntry {
  readonly agent: string;
  readonly module: string;
  /** "<agent>'s Edit of <path> was denied: <why>". */
  readonly what: string;
  readonly at: string;
}

/** An open disagreement, with every side and its author. */
export interface DisputeEntry {
  readonly about: string;
  readonly sides: ReadonlyArray<{
    readonly agent: string;
    readonly value: string;
    /** For a decision's side: its authority, when not the default (`agent`). */
    readonly authority?: Authority;
  }>;
}

/** Someone acted on a fact that has changed since they read it. */
export interface StaleReadEntry {
  readonly agent: string;
  /** What they read, as it was. */
  readonly read: string;
  /** When they read it (ISO). */
  readonly at: string;
  /** What replaced it. */
  readonly nowSays?: string;
}

/** Everything `shared-ctx watch` shows about one subject, from its timeline alone. */
export interface SubjectView {
  readonly subjectId: string;
  readonly episodes: number;
  readonly lastActivity?: string;
  readonly claims: readonly ClaimEntry[];
  /** The newest {@link shownDecisions} active decisions, oldest of them first. */
  readonly decisions: readonly DecisionEntry[];
  /** Active decisions older than those listed. */
  readonly olderDecisions: number;
  /** The newest superseded decisions, as many as `decisions`. */
  readonly superseded: readonly DecisionEntry[];
  /** Superseded decisions older than those listed. */
  readonly olderSuperseded: number;
  readonly disputes: readonly DisputeEntry[];
  readonly staleReads: readonly StaleReadEntry[];
  /** Edits the hooks refused; present when the subject's edit activity was read. */
  readonly denials?: readonly DenialEntry[];
}

/** How many of the newest active decisions (and superseded ones) the view lists. @default */
export const shownDecisions = 20;

/**
 * The watch view of a subject, whoever writes it (MCP agents, the library, LangGraph nodes, a
 * demo run): open claims, the newest active decisions and superseded ones (with what replaced
 * them, and how many older ones are not listed), open disputes with both sides (active decisions
 * that contradict each other, unresolved escalations), and reads of facts that have changed since.
 */
export function buildSubjectView(
  timeline: Timeline,
  state?: SharedStateSnapshot,
  edits?: EditActivity,
): SubjectView {
  const digest = new SubjectDigest(timeline.subjectId);
  for (const episode of timeline.episodes) digest.addEpisode(episode);
  for (const memory of timeline.memories) digest.addMemory(memory);
  return viewOfDigest(digest, state, edits);
}

/**
 * The watch view from a {@link SubjectDigest}: what `watch --once` folds page by page and the live
 * view change by change, so both print the same lines.
 * @param options.shown how many of the newest decisions to list (@default {@link shownDecisions})
 */
export function viewOfDigest(
  digest: SubjectDigest,
  state?: SharedStateSnapshot,
  edits?: EditActivity,
  options: { shown?: number } = {},
): SubjectView {
  const shown = options.shown ?? shownDecisions;
  const agents = digest.agents;
  const author = (decision: DecisionDigest) => agents.name(decision.source ?? "unknown");
  const decisions = [...digest.decisions.values()];
  const active = decisions.filter((decision) => decision.active);
  const superseded = supersededDecisions(decisions, active, author);
  return {
    subjectId: digest.subjectId,
    episodes: digest.episodes,
    ...(digest.lastActivity ? { lastActivity: digest.lastActivity } : {}),
    claims: allClaims(digest, agents, state, edits),
    decisions: newest(active, shown).map((decision) => decisionEntry(decision, author)),
    olderDecisions: Math.max(0, active.length - shown),
    superseded: newest(superseded, shown),
    olderSuperseded: Math.max(0, superseded.length - shown),
    disputes: unique(
      [
        ...contradictions(active, author),
        ...digest.openEscalations.map((event) => ({
          about: `${event.namespace}/${event.key}`,
          sides: event.contenders.map((side) => ({
            agent: agents.name(side.agentId),
            value: side.value,
          })),
        })),
        ...(state ? stateDisputes(state, agents) : []),
      ],
      (dispute) => dispute.about,
    ),
    staleReads: staleReads(digest, superseded, agents),
    ...(edits
      ? {
          denials: edits.denials.map((denial) => ({
            agent: denial.agent,
            module: denial.module,
            what: denial.description,
            at: denial.at,
          })),
        }
      : {}),
  };
}

/** The last `count` items (the newest), in their order. */
function newest<T>(items: readonly T[], count: number): T[] {
  return count <= 0 ? [] : items.slice(-count);
}

/** How a shared-state value reads in a dispute line. */
function valueText(value: unknown, agents: AgentDirectory): string {
  return humanizeEncodings(typeof value === "string" ? value : JSON.stringify(value), agents);
}

/** Claims in the shared state (`claimed-by:<agent>` fields), by the field's key. */
function stateClaims(state: SharedStateSnapshot, agents: AgentDirectory): ClaimEntry[] {
  return Object.values(state.values).flatMap((fields) =>
    Object.entries(fields).flatMap(([key, value]) =>
      typeof value === "string" && value.startsWith("claimed-by:")
        ? [{ module: key, agent: agents.name(value.slice("claimed-by:".length)), state: "claimed" }]
        : [],
    ),
  );
}

/** Escalations of the shared state nobody has settled yet. */
function stateDisputes(state: SharedStateSnapshot, agents: AgentDirectory): DisputeEntry[] {
  return state.escalations
    .filter((escalation) => escalation.resolution === undefined)
    .map((escalation) => ({
      about: `${escalation.namespace}/${escalation.key}`,
      sides: escalation.contenders.map((contender) => ({
        agent: agents.name(contender.agentId),
        value: valueText(contender.value, agents),
      })),
    }));
}

/** Who wrote a decision, by the name the view shows. */
type AuthorOf = (decision: DecisionDigest) => string;

/** A decision as the view lists it. */
function decisionEntry(decision: DecisionDigest, author: AuthorOf): DecisionEntry {
  return {
    id: decision.id,
    ...(decision.target ? { target: decision.target } : {}),
    author: author(decision),
    ...(decision.authority ? { authority: decision.authority } : {}),
    content: decision.content,
    at: decision.at,
  };
}

/**
 * The superseded decisions, each with the active one that replaced it: the latest on the same
 * target, or, for a decision without a target, the latest by the same author. Indexed once, so
 * that the cost follows the decisions, not decisions times decisions.
 */
function supersededDecisions(
  decisions: readonly DecisionDigest[],
  active: readonly DecisionDigest[],
  author: AuthorOf,
): DecisionEntry[] {
  const latestOnTarget = new Map<string, DecisionDigest>();
  const latestBySource = new Map<string | undefined, DecisionDigest>();
  for (const decision of active) {
    if (decision.target !== undefined) latestOnTarget.set(decision.target, decision);
    latestBySource.set(decision.source, decision);
  }
  return decisions
    .filter((decision) => !decision.active)
    .flatMap((decision): DecisionEntry[] => {
      const by =
        decision.target !== undefined
          ? latestOnTarget.get(decision.target)
          : latestBySource.get(decision.source);
      if (!by) return [decisionEntry(decision, author)];
      // An agent restating what stands changed nothing: not worth a line.
      if (by.content === decision.content && author(by) === author(decision)) return [];
      return [
        {
          ...decisionEntry(decision, author),
          supersededBy: { author: author(by), content: by.content, at: by.at },
        },
      ];
    });
}

/** Two active decisions on one target by different authors who had not read each other's. */
function contradictions(active: readonly DecisionDigest[], author: AuthorOf): DisputeEntry[] {
  const byTarget = new Map<string, DecisionDigest[]>();
  for (const decision of active) {
    if (decision.target === undefined) continue;
    const same = byTarget.get(decision.target);
    if (same) same.push(decision);
    else byTarget.set(decision.target, [decision]);
  }
  return [...byTarget].flatMap(([target, decisions]) =>
    new Set(decisions.map((decision) => decision.source)).size > 1
      ? [
          {
            about: target,
            sides: decisions.map((decision) => ({
              agent: author(decision),
              value: decision.content,
              ...(decision.authority ? { authority: decision.authority } : {}),
            })),
          },
        ]
      : [],
  );
}

/** Reads of a decision that was superseded since: one line per reader and fact. */
function staleReads(
  digest: SubjectDigest,
  superseded: readonly DecisionEntry[],
  agents: AgentDirectory,
): StaleReadEntry[] {
  const supersededById = new Map(superseded.map((decision) => [decision.id, decision]));
  const lines: StaleReadEntry[] = [];
  for (const read of digest.reads) {
    const changed = supersededById.get(read.memoryId);
    if (!changed) continue;
    lines.push({
      agent: agents.name(read.agentId),
      read: changed.content,
      at: read.at,
      ...(changed.supersededBy ? { nowSays: changed.supersededBy.content } : {}),
    });
  }
  return lines;
}

/**
 * Open claims: a run's (and the shared state's, unless the run says the work ended), then the
 * coding sessions' live edit claims (the hooks'), where two sessions can hold one module.
 */
function allClaims(
  digest: SubjectDigest,
  agents: AgentDirectory,
  state: SharedStateSnapshot | undefined,
  edits: EditActivity | undefined,
): ClaimEntry[] {
  const finished = digest.finishedModules;
  return [
    ...unique(
      [
        ...digest.runClaims.map((claim) => ({
          module: claim.module,
          agent: agents.name(claim.agentId),
          state: claim.state,
        })),
        // A claim stays in the shared state after the work is done: a run says when it ended.
        ...(state ? stateClaims(state, agents) : []).filter((claim) => !finished.has(claim.module)),
      ],
      (claim) => claim.module,
    ),
    ...unique(
      (edits?.claims ?? []).map((claim) => ({
        module: claim.module,
        // A session id as the harness gave it (not a run's role name, which the directory styles).
        agent: claim.agent,
        state: "editing",
      })),
      (claim) => `${claim.module}\u0000${claim.agent}`,
    ),
  ];
}

/** The first of each key, in order. */
function unique<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = keyOf(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** " (user)" after an author whose class is not the default; nothing for the default. */
function authorityNote(authority: Authority | undefined): string {
  return authority === undefined ? "" : ` (${authority})`;
}

/** The view as plain lines (pipes, `timeline --subject`'s summary, tests). */
/** True when nothing was ever written to the subject (a typo, or agents that have not started). */
export function isEmptySubjectView(view: SubjectView): boolean {
  return (
    view.episodes === 0 &&
    view.claims.length === 0 &&
    view.decisions.length === 0 &&
    view.superseded.length === 0 &&
    view.disputes.length === 0 &&
    view.staleReads.length === 0
  );
}

export function formatSubjectView(view: SubjectView): string[] {
  const section = (title: string, lines: readonly string[], older = 0) => [
    "",
    `${title} (${lines.length + older})`,
    ...(older > 0
      ? [`  … ${older} older not listed (shared-ctx timeline --subject lists all)`]
      : []),
    ...(lines.length > 0 ? lines.map((line) => `  ${line}`) : ["  (none)"]),
  ];
  return [
    `Subject ${view.subjectId} · ${view.episodes} episodes${view.lastActivity ? ` · last write ${view.lastActivity}` : ""}`,
    ...section(
      "Working on",
      view.claims.map((claim) => `${claim.agent} ${claim.state} ${claim.module}`),
    ),
    ...section(
      "Decisions",
      view.decisions.map(
        (decision) =>
          `${decision.author}${authorityNote(decision.authority)}${decision.target ? ` on ${decision.target}` : ""}: ${decision.content}`,
      ),
      view.olderDecisions,
    ),
    ...section(
      "Superseded",
      view.superseded.map(
        (decision) =>
          `${decision.author}${authorityNote(decision.authority)}: ${decision.content}${decision.supersededBy ? ` → now ${decision.supersededBy.author}: ${decision.supersededBy.content}` : ""}`,
      ),
      view.olderSuperseded,
    ),
    ...section(
      "Open disputes",
      view.disputes.map(
        (dispute) =>
          `${dispute.about}: ${dispute.sides.map((side) => `${side.agent}${authorityNote(side.authority)} says ${side.value}`).join(" vs ")}`,
      ),
    ),
    ...section(
      "Read before it changed",
      view.staleReads.map(
        (read) =>
          `${read.agent} read "${read.read}"${read.nowSays ? `; now: "${read.nowSays}"` : ""}`,
      ),
    ),
    ...(view.denials
      ? section(
          "Edits refused",
          view.denials.map((denial) => `${denial.at.slice(11, 16)} ${denial.what}`),
        )
      : []),
  ];
}
