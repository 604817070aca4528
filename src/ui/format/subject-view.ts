import { type Authority, authorityOf, defaultAuthority } from "../../context/authority.js";
import type { Memory, Timeline } from "../../context/context-store.js";
import type { EditActivity } from "../../hooks/edit-activity.js";
import { fromRunEventEpisode } from "../../scenario/run-record.js";
import type { ScenarioEvent } from "../../scenario/scenario-events.js";
import type { SharedStateSnapshot } from "../data/read-shared-state.js";
import { type AgentDirectory, agentDirectoryOf } from "./agent-directory.js";
import { humanizeEncodings } from "./humanize-encodings.js";

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
  readonly decisions: readonly DecisionEntry[];
  readonly superseded: readonly DecisionEntry[];
  readonly disputes: readonly DisputeEntry[];
  readonly staleReads: readonly StaleReadEntry[];
  /** Edits the hooks refused; present when the subject's edit activity was read. */
  readonly denials?: readonly DenialEntry[];
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

/** Kinds that are decisions or findings (what agents act on), not summaries of machinery. */
const decisionKinds = new Set(["architectural_decision", "review_finding", "procedure"]);

function isDecision(memory: Memory): boolean {
  return decisionKinds.has(memory.kind);
}

/** Claims still open: claimed or building, and not yet built, skipped or cancelled. */
function openClaims(events: readonly ScenarioEvent[]): ClaimEntry[] {
  const agents = agentDirectoryOf(events);
  const open = new Map<string, ClaimEntry>();
  for (const event of events) {
    if (event.type === "module-claim") {
      open.set(event.module, {
        module: event.module,
        agent: agents.name(event.agentId),
        state: "claimed",
      });
    } else if (event.type === "module-start") {
      open.set(event.module, {
        module: event.module,
        agent: agents.name(event.agentId),
        state: "building",
      });
    } else if (
      event.type === "module-end" ||
      event.type === "module-skip" ||
      event.type === "module-cancel"
    ) {
      open.delete(event.module);
    }
  }
  return [...open.values()];
}

/** Escalations without a resolution, from a run's events. */
function openEscalations(events: readonly ScenarioEvent[]): DisputeEntry[] {
  const agents = agentDirectoryOf(events);
  const resolved = new Set(
    events.flatMap((event) => (event.type === "escalation-resolve" ? [event.escalationId] : [])),
  );
  return events.flatMap((event) =>
    event.type === "escalation" && !resolved.has(event.escalationId)
      ? [
          {
            about: `${event.namespace}/${event.key}`,
            sides: event.contenders.map((side) => ({
              agent: agents.name(side.agentId),
              value: side.value,
            })),
          },
        ]
      : [],
  );
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

/**
 * The watch view of a subject, whoever writes it (MCP agents, the library, LangGraph nodes, a
 * demo run): open claims, active decisions and the ones superseded (with what replaced them), open
 * disputes with both sides (active decisions that contradict each other, unresolved escalations),
 * and reads of facts that have changed since.
 */
export function buildSubjectView(
  timeline: Timeline,
  state?: SharedStateSnapshot,
  edits?: EditActivity,
): SubjectView {
  const events = timeline.episodes.flatMap((episode) => fromRunEventEpisode(episode) ?? []);
  const agents = agentDirectoryOf(events);
  const author = (memory: Memory) => agents.name(text(memory.metadata.source) ?? "unknown");
  const decisions = timeline.memories.filter(isDecision);
  const active = decisions.filter((memory) => memory.status === "active");
  const superseded = supersededDecisions(decisions, active, author);
  return {
    subjectId: timeline.subjectId,
    episodes: timeline.episodes.length,
    ...(timeline.episodes.at(-1) ? { lastActivity: timeline.episodes.at(-1)?.createdAt } : {}),
    claims: allClaims(events, agents, state, edits),
    decisions: active.map((memory) => decisionEntry(memory, author)),
    superseded,
    disputes: unique(
      [
        ...contradictions(active, author),
        ...openEscalations(events),
        ...(state ? stateDisputes(state, agents) : []),
      ],
      (dispute) => dispute.about,
    ),
    staleReads: staleReads(timeline, superseded, agents),
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

/** Who wrote a memory, by the name the view shows. */
type AuthorOf = (memory: Memory) => string;

/** A decision memory as the view lists it. */
function decisionEntry(memory: Memory, author: AuthorOf): DecisionEntry {
  const target = text(memory.metadata.target);
  return {
    id: memory.id,
    ...(target ? { target } : {}),
    author: author(memory),
    ...authorityField(memory),
    content: memory.content,
    at: memory.createdAt,
  };
}

/** A memory's authority, when it is not the default (`agent`). */
function authorityField(memory: Memory): { authority?: Authority } {
  const authority = authorityOf(memory.metadata);
  return authority === defaultAuthority ? {} : { authority };
}

/**
 * The superseded decisions, each with the active one that replaced it: the latest on the same
 * target, or, for a decision without a target, the latest by the same author.
 */
function supersededDecisions(
  decisions: readonly Memory[],
  active: readonly Memory[],
  author: AuthorOf,
): DecisionEntry[] {
  const replacementOf = (memory: Memory) => {
    const target = text(memory.metadata.target);
    return [...active]
      .reverse()
      .find((candidate) =>
        target !== undefined
          ? text(candidate.metadata.target) === target
          : text(candidate.metadata.source) === text(memory.metadata.source),
      );
  };
  return decisions
    .filter((memory) => memory.status === "superseded")
    .flatMap((memory): DecisionEntry[] => {
      const by = replacementOf(memory);
      if (!by) return [decisionEntry(memory, author)];
      // An agent restating what stands changed nothing: not worth a line.
      if (by.content === memory.content && author(by) === author(memory)) return [];
      return [
        {
          ...decisionEntry(memory, author),
          supersededBy: { author: author(by), content: by.content, at: by.createdAt },
        },
      ];
    });
}

/** Two active decisions on one target by different authors who had not read each other's. */
function contradictions(active: readonly Memory[], author: AuthorOf): DisputeEntry[] {
  const byTarget = new Map<string, Memory[]>();
  for (const memory of active) {
    const target = text(memory.metadata.target);
    if (target) byTarget.set(target, [...(byTarget.get(target) ?? []), memory]);
  }
  return [...byTarget].flatMap(([target, memories]) =>
    new Set(memories.map((memory) => text(memory.metadata.source))).size > 1
      ? [
          {
            about: target,
            sides: memories.map((memory) => ({
              agent: author(memory),
              value: memory.content,
              ...authorityField(memory),
            })),
          },
        ]
      : [],
  );
}

/** Reads of a decision that was superseded since: one line per reader and fact. */
function staleReads(
  timeline: Timeline,
  superseded: readonly DecisionEntry[],
  agents: AgentDirectory,
): StaleReadEntry[] {
  const supersededById = new Map(superseded.map((decision) => [decision.id, decision]));
  // Reading the same stale fact again adds nothing.
  const reported = new Set<string>();
  return timeline.episodes.flatMap((episode) => {
    const event = fromRunEventEpisode(episode);
    if (event?.type !== "context-read") return [];
    return event.memoryIds.flatMap((id) => {
      const changed = supersededById.get(id);
      const key = `${event.agentId}\u0000${id}`;
      if (!changed || reported.has(key)) return [];
      reported.add(key);
      return changed
        ? [
            {
              agent: agents.name(event.agentId),
              read: changed.content,
              at: episode.createdAt,
              ...(changed.supersededBy ? { nowSays: changed.supersededBy.content } : {}),
            },
          ]
        : [];
    });
  });
}

/**
 * Open claims: a run's (and the shared state's, unless the run says the work ended), then the
 * coding sessions' live edit claims (the hooks'), where two sessions can hold one module.
 */
function allClaims(
  events: readonly ScenarioEvent[],
  agents: AgentDirectory,
  state: SharedStateSnapshot | undefined,
  edits: EditActivity | undefined,
): ClaimEntry[] {
  const finished = new Set(
    events.flatMap((event) =>
      event.type === "module-end" || event.type === "module-skip" || event.type === "module-cancel"
        ? [event.module]
        : [],
    ),
  );
  return [
    ...unique(
      [
        ...openClaims(events),
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
  const section = (title: string, lines: readonly string[]) => [
    "",
    `${title} (${lines.length})`,
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
    ),
    ...section(
      "Superseded",
      view.superseded.map(
        (decision) =>
          `${decision.author}${authorityNote(decision.authority)}: ${decision.content}${decision.supersededBy ? ` → now ${decision.supersededBy.author}: ${decision.supersededBy.content}` : ""}`,
      ),
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
