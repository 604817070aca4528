import type { RefereeReport, RunSummary, ScenarioEvent } from "../../scenario/scenario-events.js";
import { type AgentDirectory, agentDirectoryOf } from "./agent-directory.js";
import { formatDuration, formatTokens, plural } from "./duration.js";
import { shortReason } from "./event-line.js";
import { describeCollisionCause, formatAvoidedBy } from "./mode-labels.js";
import { agentNoun, droppedStory, wastedStory } from "./verdict-story.js";

/** What a finished run amounts to (`unresolved`: a dispute nobody settled; never a win). */
export type VerdictKind = "collision" | "unresolved" | "avoided" | "escalated" | "clean";

/** The box a pane shows when its run has ended (and the plain output prints). */
export interface Verdict {
  /** Which of the four outcomes; the views colour the box by it. */
  readonly kind: VerdictKind;
  /** The headline: "COLLISION DETECTED — both agents already finished; …". */
  readonly title: string;
  /** Supporting lines: what collided or what was skipped, and what it cost. */
  readonly details: readonly string[];
  /** One line per escalation, with its resolution or "open". */
  readonly escalations: readonly string[];
}

/** The escalations of a run, each with its contenders and its resolution. */
export function describeEscalations(
  events: readonly ScenarioEvent[],
  agents: AgentDirectory = agentDirectoryOf(events),
): string[] {
  const resolutions = new Map<string, { by: string; value: string }>();
  for (const event of events) {
    if (event.type === "escalation-resolve") resolutions.set(event.escalationId, event);
  }
  const lines: string[] = [];
  for (const event of events) {
    if (event.type !== "escalation") continue;
    const contenders = event.contenders
      .map((contender) => `${agents.name(contender.agentId)}: ${contender.value}`)
      .join(" vs ");
    const resolution = resolutions.get(event.escalationId);
    const outcome = resolution
      ? `resolved to ${resolution.value} by ${agents.name(resolution.by)}`
      : "open, waiting for a decision";
    lines.push(`${event.namespace}/${event.key}: ${contenders} (${outcome})`);
  }
  return lines;
}

/** What stopped the work, from the reason the pipeline gave: a claim on the module or a decision. */
function causeNoun(reason: string): "decision" | "claim" {
  // "deprecated by planner", or an escalated claim settled to "deprecated-by:planner": a decision.
  if (/deprecat/i.test(reason)) return "decision";
  return /claim/i.test(reason) ? "claim" : "decision";
}

/** "the Planner's decision", "Coder 2's claim", or "a claim" when nobody is named. */
function causePhrase(causedBy: string | null, reason: string, agents: AgentDirectory): string {
  const noun = causeNoun(reason);
  return causedBy ? `${agentNoun(causedBy, agents)}'s ${noun}` : `a ${noun}`;
}

/**
 * "the Coder read the Planner's decision before acting", "Coder 1 read Coder 2's claim before
 * acting": named after the agents involved and what stopped the work.
 */
function avoidedHeadline(events: readonly ScenarioEvent[], agents: AgentDirectory): string {
  for (const event of events) {
    if (event.type === "module-skip") {
      return `CONFLICT AVOIDED — ${agentNoun(event.agentId, agents)} read ${causePhrase(event.causedBy, event.reason, agents)} before acting`;
    }
  }
  for (const event of events) {
    if (event.type === "module-cancel") {
      return `CONFLICT AVOIDED — ${agentNoun(event.agentId, agents)} stopped as soon as ${causePhrase(event.causedBy, event.reason, agents)} landed`;
    }
  }
  return "CONFLICT AVOIDED — the agents read each other's decisions before acting";
}

/**
 * The referee's judgement of a run, as its summary carries it. A run recorded before the referee
 * existed keeps the verdict it was given: its wasted modules, no dropped work, no open question.
 */
function refereeOf(summary: RunSummary): RefereeReport {
  if (summary.referee !== undefined) return summary.referee;
  return {
    verdict: summary.collision ? "collision" : "clean",
    wastedModules: summary.wastedModules,
    droppedModules: [],
    openDisputes: [],
    staleActions: [],
    modules: [],
  };
}

function collisionVerdict(
  summary: RunSummary,
  referee: RefereeReport,
  events: readonly ScenarioEvent[],
  agents: AgentDirectory,
): Omit<Verdict, "escalations"> {
  const wasted = referee.wastedModules.map((module) => wastedStory(events, module, agents));
  const dropped = referee.modules
    .filter((judged) => judged.outcome === "dropped")
    .map((judged) => droppedStory(judged.module, judged.plannedBy, agents));
  const cause = summary.collisionCause
    ? [`Why: ${describeCollisionCause(summary.collisionCause)}`]
    : [];
  return {
    kind: "collision",
    title:
      referee.wastedModules.length > 0
        ? "COLLISION DETECTED — work built in vain; the wasted compute cannot be recovered"
        : "COLLISION DETECTED — planned work the final decisions keep was never done",
    details: [...wasted, ...dropped, ...cause, wastedLine(summary)],
  };
}

function unresolvedVerdict(
  summary: RunSummary,
  referee: RefereeReport,
  agents: AgentDirectory,
): Omit<Verdict, "escalations"> {
  const disputes = referee.openDisputes.map(
    (dispute) =>
      `${dispute.target}: ${dispute.contenders
        .map((contender) => `${agents.name(contender.agentId)} (${contender.value})`)
        .join(" vs ")}, decided without seeing each other; nobody settled it`,
  );
  const targets = referee.openDisputes.map((dispute) => dispute.target).join(", ");
  return {
    kind: "unresolved",
    title: `UNRESOLVED — ${plural(referee.openDisputes.length, "dispute")} still open (${targets}): no work wasted, but the question is not answered`,
    details: [...disputes, wastedLine(summary)],
  };
}

function wastedLine(summary: RunSummary): string {
  return `Wasted: ${plural(summary.wasted.modules, "module")} built in vain, ${formatTokens(summary.wasted.tokens)} tokens, ${formatDuration(summary.wasted.ms)}`;
}

/**
 * Work held on a dispute, and how the hold ended: "Held cache mid-build (…); resumed after the
 * ruling, progress kept" or "…; stopped by the ruling".
 */
function heldLines(events: readonly ScenarioEvent[], agents: AgentDirectory): string[] {
  const lines: string[] = [];
  events.forEach((event, position) => {
    if (event.type !== "module-hold") return;
    const after = events
      .slice(position + 1)
      .find(
        (later) =>
          (later.type === "module-resume" || later.type === "module-cancel") &&
          later.agentId === event.agentId &&
          later.module === event.module,
      );
    const ending =
      after?.type === "module-resume"
        ? "resumed after the ruling, progress kept"
        : after?.type === "module-cancel"
          ? "stopped by the ruling"
          : "still held";
    lines.push(
      `Held ${event.module} mid-build (${shortReason(event.reason, event.module, agents)}); ${ending}`,
    );
  });
  return lines;
}

/**
 * The verdict a pane shows when its run has ended: the referee's (the same judgement for every
 * mode), told in terms of what each agent received and when.
 */
export function verdictFor(summary: RunSummary, events: readonly ScenarioEvent[]): Verdict {
  const agents = agentDirectoryOf(events);
  const escalations = describeEscalations(events, agents);
  const wasted = wastedLine(summary);
  const referee = refereeOf(summary);

  if (referee.verdict === "collision") {
    return { ...collisionVerdict(summary, referee, events, agents), escalations };
  }
  if (referee.verdict === "unresolved") {
    return { ...unresolvedVerdict(summary, referee, agents), escalations };
  }
  if (summary.conflictsAvoided > 0) {
    const prevented = events.flatMap((event) =>
      event.type === "module-skip"
        ? [`Skipped ${event.module}: ${shortReason(event.reason, event.module, agents)}`]
        : event.type === "module-cancel"
          ? [
              `Cancelled ${event.module} mid-build: ${shortReason(event.reason, event.module, agents)}`,
            ]
          : [],
    );
    const by = formatAvoidedBy(summary.avoidedBy ?? {});
    return {
      kind: "avoided",
      title: avoidedHeadline(events, agents),
      details: [
        ...prevented,
        ...heldLines(events, agents),
        ...(by ? [`Avoided: ${by}`] : []),
        wasted,
      ],
      escalations,
    };
  }
  if (summary.escalations > 0) {
    return {
      kind: "escalated",
      title: `ESCALATED — ${plural(summary.escalations, "conflicting decision")} handed over instead of silently overwritten`,
      details: [wasted],
      escalations,
    };
  }
  // Zero work is not success: a run that built nothing says so instead of "no conflict".
  const started = events.some((event) => event.type === "module-start");
  const decided = events.some((event) => event.type === "decision-write");
  return {
    kind: "clean",
    title: started
      ? "NO CONFLICT — nothing the agents built contradicted a decision"
      : decided
        ? "NOTHING BUILT — no work was planned, so nothing could contradict a decision"
        : "NOTHING TO COORDINATE — the task gave the agents no work and no decision",
    details: [...heldLines(events, agents), wasted],
    escalations,
  };
}
