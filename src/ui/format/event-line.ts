import { checkExhaustive } from "../../errors.js";
import type { ScenarioEvent } from "../../scenario/scenario-events.js";
import type { AgentDirectory } from "./agent-directory.js";
import { formatDuration, formatTokens, plural } from "./duration.js";

/** How a line reads: the views map tones to theme colours; the plain output ignores them. */
export type LineTone = "normal" | "decision" | "skip" | "warning" | "error" | "success" | "muted";

/** One human line for one event: `[Planner] DEPRECATING → legacy-session-token (replaced by JWT)`. */
export interface EventLine {
  readonly at: number;
  /** The agent the line is about, or null for the run itself and the shared state. */
  readonly agentId: string | null;
  /** Shown in brackets: the agent's name, "Run" or "Shared state". */
  readonly label: string;
  readonly text: string;
  readonly tone: LineTone;
}

/** The value of a decision as a verb: "deprecate" -> "DEPRECATING". */
function decisionVerb(value: string): string {
  const word = value.split(/[\s:]/)[0] ?? value;
  if (/^deprecat/i.test(word)) return "DEPRECATING";
  if (/^(build|keep|use|adopt)$/i.test(word)) return `DECIDING ${word.toUpperCase()}`;
  return "DECIDING";
}

/** "(replaced by JWT)." -> "replaced by JWT": the line puts its own parentheses around it. */
function unwrapParentheses(text: string): string {
  const trimmed = text.trim().replace(/\.$/, "");
  return /^\([^()]*\)$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
}

/**
 * Free text from the runner names agents by id ("coder built x, which planner deprecated"):
 * shown with their display names, and without a trailing restatement of the module.
 */
export function humanizeText(text: string, agents: AgentDirectory): string {
  let result = text;
  for (const agent of agents.agents) {
    if (agent.id === agent.name) continue;
    const pattern = new RegExp(`\\b${agent.id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "g");
    result = result.replace(pattern, agent.name);
  }
  return result;
}

/** "deprecated by Planner: Deprecate x (replaced by JWT)." -> "deprecated by Planner" when it repeats the module. */
export function shortReason(reason: string, module: string, agents: AgentDirectory): string {
  const human = humanizeText(reason, agents).trim();
  const colon = human.indexOf(": ");
  if (colon > 0 && human.slice(colon).includes(module)) return human.slice(0, colon);
  return human.replace(/\.$/, "");
}

/** Words that add nothing to a decision's verb and target: "Deprecate the old throttle module." */
const fillerWords = new Set([
  "the",
  "a",
  "an",
  "this",
  "that",
  "it",
  "its",
  "our",
  "existing",
  "old",
  "current",
  "module",
  "modules",
  "service",
  "component",
  "code",
  "package",
  "library",
]);

/**
 * True when `text` says nothing but the decision's verb and target (in any spelling): shown in
 * parentheses it would be noise like "(module)".
 */
function restatesDecision(text: string, target: string, value: string): boolean {
  const said = new Set([...target.split(/[^a-z0-9]+/i), ...value.split(/[^a-z0-9]+/i)]);
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "")
    .every(
      (word) =>
        fillerWords.has(word) ||
        said.has(word) ||
        // The verb in any form: "deprecate", "deprecated", "deprecating", "keep", "keeping".
        /^(deprecat|keep|build|use|adopt)/.test(word),
    );
}

/**
 * The decision's explanation without a repetition of its verb and target, or undefined when it
 * has none worth showing.
 */
function decisionDetail(event: {
  target: string;
  value: string;
  content: string;
}): string | undefined {
  const target = event.target.toLowerCase();
  const value = event.value.toLowerCase();
  const content = event.content.trim();
  // A value the verb does not already say ("use-redis" under DECIDING) is the only detail left.
  if (!content || restatesDecision(content, target, value)) {
    return decisionVerb(event.value) === "DECIDING" ? event.value : undefined;
  }
  // "Deprecate legacy-session-token: replaced by JWT" -> "replaced by JWT": the verb and the
  // target are already on the line.
  const at = content.toLowerCase().indexOf(target);
  if (at >= 0 && at <= 20) {
    // "legacy-throttle module; replaced by …" -> "replaced by …": the noun after the name too.
    const rest = content
      .slice(at + target.length)
      .replace(/^[\s:;,.\-—]+/, "")
      .replace(/^(?:module|service|component)\b[\s:;,.\-—]*/i, "");
    if (rest) return unwrapParentheses(rest);
  }
  return unwrapParentheses(content);
}

function byAgent(
  event: { at: number },
  agentId: string,
  agents: AgentDirectory,
  text: string,
  tone: LineTone = "normal",
): EventLine {
  return { at: event.at, agentId, label: agents.name(agentId), text, tone };
}

/** How each kind of read is told. */
const readWhere = {
  "shared context": "Read shared context",
  inbox: "Read inbox",
  interrupt: "Interrupted by a message",
  "re-read": "Re-read shared context",
} as const;

/** What a read says: where, how many decisions (the first of them), the disputes still open. */
function readText(event: Extract<ScenarioEvent, { type: "context-read" }>): string {
  const known = event.decisions.length;
  const first = event.decisions[0];
  const where = readWhere[event.source ?? "shared context"];
  // A filtered read of one module says so: "no decisions yet" read as if the run had none.
  const about = /^Build module (\S+)$/.exec(event.task)?.[1];
  const text =
    known === 0
      ? `${where}: ${about === undefined ? "no decisions yet" : `no decisions on ${about}`}`
      : `${where} → ${plural(known, "decision")}${first ? `: ${first}` : ""}${known > 1 ? " …" : ""}`;
  if (event.disputes.length === 0) return text;
  // "…replaces it).; 1 dispute open" reads as a typo: the clause after it ends the sentence.
  return `${text.replace(/\.$/, "")}; ${plural(event.disputes.length, "dispute")} open`;
}

/** The line a pane (and the plain output) shows for an event. */
export function describeEvent(event: ScenarioEvent, agents: AgentDirectory): EventLine {
  switch (event.type) {
    case "run-start":
      return {
        at: event.at,
        agentId: null,
        label: "Run",
        text: `${event.runId} started: ${event.scenario} (${event.brain})`,
        tone: "muted",
      };
    case "agent-start":
      return byAgent(event, event.agentId, agents, `Starting: ${event.taskSlice}`, "muted");
    case "agent-log":
      return byAgent(event, event.agentId, agents, event.text);
    case "context-read":
      return byAgent(event, event.agentId, agents, readText(event), "muted");
    case "message-send":
      return byAgent(
        event,
        event.from,
        agents,
        `Message → ${event.to === "*" || event.to === "all" ? "everyone" : agents.name(event.to)}: ${event.content}`,
      );
    case "decision-write": {
      const detail = decisionDetail(event);
      return byAgent(
        event,
        event.agentId,
        agents,
        `${decisionVerb(event.value)} → ${event.target}${detail ? ` (${detail})` : ""}`,
        "decision",
      );
    }
    case "module-claim":
      return byAgent(event, event.agentId, agents, `Claiming → ${event.module}`, "muted");
    case "module-start":
      return byAgent(event, event.agentId, agents, `Building → ${event.module}`);
    case "module-end":
      return byAgent(
        event,
        event.agentId,
        agents,
        `Built → ${event.module} (${formatTokens(event.tokens)} tokens, ${formatDuration(event.ms)})`,
        "success",
      );
    case "module-skip":
      return byAgent(
        event,
        event.agentId,
        agents,
        `Skipping → ${event.module} (${shortReason(event.reason, event.module, agents)})${event.mechanism ? ` · ${event.mechanism}` : ""}`,
        "skip",
      );
    case "module-cancel":
      return byAgent(
        event,
        event.agentId,
        agents,
        `CANCELLED → ${event.module} (${shortReason(event.reason, event.module, agents)}; ${formatTokens(event.tokensSpent)} tokens spent)${event.mechanism ? ` · ${event.mechanism}` : ""}`,
        "warning",
      );
    case "module-hold":
      return byAgent(
        event,
        event.agentId,
        agents,
        `HELD → ${event.module} (${shortReason(event.reason, event.module, agents)}; ${formatDuration(event.msDone)} done, kept)${event.mechanism ? ` · ${event.mechanism}` : ""}`,
        "warning",
      );
    case "module-resume":
      return byAgent(
        event,
        event.agentId,
        agents,
        `Resuming → ${event.module} (${event.reason}; ${formatDuration(event.remainingMs)} left)`,
      );
    case "escalation":
      return {
        at: event.at,
        agentId: null,
        label: "Shared state",
        text: `ESCALATED → ${event.namespace}/${event.key}: ${event.contenders
          .map((contender) => `${agents.name(contender.agentId)} wants ${contender.value}`)
          .join(" vs ")}`,
        tone: "warning",
      };
    case "escalation-resolve":
      return {
        at: event.at,
        agentId: null,
        label: "Shared state",
        text: `Resolved → ${event.value} (by ${agents.name(event.by)})`,
        tone: "success",
      };
    case "collision":
      return byAgent(
        event,
        event.detectedBy,
        agents,
        `COLLISION → ${event.module}: ${humanizeText(event.description, agents)}${event.cause ? ` · lacked ${event.cause}` : ""}`,
        "error",
      );
    case "agent-restart":
      return byAgent(
        event,
        event.agentId,
        agents,
        "CRASHED → restarting: its memory is gone, it reads again as a joiner would",
        "warning",
      );
    case "coordinator-restart":
      return {
        at: event.at,
        agentId: null,
        label: "Coordinator",
        text: `RESTARTED → ${event.lost}`,
        tone: "warning",
      };
    case "agent-end":
      return byAgent(event, event.agentId, agents, "Done", "muted");
    case "run-end":
      return {
        at: event.at,
        agentId: null,
        label: "Run",
        text: `Finished in ${formatDuration(event.summary.totals.ms)}, ${formatTokens(event.summary.totals.tokens)} tokens`,
        tone: "muted",
      };
    default:
      return checkExhaustive(event);
  }
}

/** The line as plain text: `[Planner] DEPRECATING → …`. */
export function plainEventLine(line: EventLine): string {
  return `[${line.label}] ${line.text}`;
}
