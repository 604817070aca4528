import {
  activeDecisions,
  decisionHistory,
  retiringDecision,
} from "../../scenario/referee/decision-history.js";
import type { ScenarioEvent } from "../../scenario/scenario-events.js";
import type { AgentDirectory } from "./agent-directory.js";
import { formatDuration } from "./duration.js";

type EventOf<Type extends ScenarioEvent["type"]> = Extract<ScenarioEvent, { type: Type }>;

const stamp = (at: number) => `T+${formatDuration(at)}`;

/**
 * An agent as the subject of a sentence: "the Coder" when its name is just its role (a job title
 * takes an article), otherwise the name as it is ("Coder 1", "Alice"), which takes none.
 */
export function agentNoun(agentId: string, agents: AgentDirectory): string {
  const name = agents.name(agentId);
  const role = agents.agents.find((agent) => agent.id === agentId)?.role;
  return role !== undefined && name.toLowerCase() === role ? `the ${name}` : name;
}

/** When `agentId` first received decision `decisionId` (a read that delivered it), if ever. */
function receivedAt(
  events: readonly ScenarioEvent[],
  agentId: string,
  decisionId: string,
  line: string,
): number | undefined {
  const delivered = events.find(
    (event): event is EventOf<"context-read"> =>
      event.type === "context-read" &&
      event.agentId === agentId &&
      (event.decisionIds?.includes(decisionId) ?? event.decisions.includes(line)),
  );
  return delivered?.at;
}

/**
 * What happened to a module the referee judged wasted, in terms of what each agent actually
 * received and when: "legacy-cache: the Coder built it T+4.0s–T+9.0s; the Planner deprecated it
 * at T+6.2s; the Coder read that at T+16.1s, after its build" (or "never received it").
 */
export function wastedStory(
  events: readonly ScenarioEvent[],
  module: string,
  agents: AgentDirectory,
): string {
  const builds = events.filter(
    (event): event is EventOf<"module-end"> =>
      event.type === "module-end" && event.module === module,
  );
  const builtBy = builds.map((build) => {
    const began = build.at - build.ms;
    return `${agentNoun(build.agentId, agents)} built it ${stamp(began)}–${stamp(build.at)}`;
  });
  const start = events.find((event): event is EventOf<"run-start"> => event.type === "run-start");
  const history = decisionHistory(events);
  const decision = retiringDecision(
    module,
    activeDecisions(history),
    new Map(Object.entries(start?.dependsOn ?? {})),
  );
  if (decision === undefined) {
    return `${module}: built ${builds.length} times (${builtBy.join("; ")}); one build was enough`;
  }
  const what = decision.target === module ? "it" : `${decision.target}, which it depends on,`;
  const verb = decision.value === "replace" ? "replaced" : "deprecated";
  const heard = [...new Set(builds.map((build) => build.agentId))].map((agentId) => {
    const at = receivedAt(events, agentId, decision.id, `${decision.by}: ${decision.content}`);
    const builtAt = Math.max(
      ...builds.filter((build) => build.agentId === agentId).map((build) => build.at),
    );
    const noun = agentNoun(agentId, agents);
    if (at === undefined) {
      // A message that reached its inbox but no read it made is not "never received".
      const delivered = events.find(
        (event) =>
          event.type === "message-send" &&
          event.to === agentId &&
          event.content === decision.content,
      );
      return delivered === undefined
        ? `${noun} never received it`
        : `${noun} received it at ${stamp(delivered.at)} but never read it before building`;
    }
    return `${noun} read it at ${stamp(at)}${at >= builtAt ? ", after its build" : ""}`;
  });
  return `${module}: ${builtBy.join("; ")}; ${agentNoun(decision.by, agents)} ${verb} ${what} at ${stamp(decision.at)}; ${heard.join("; ")}`;
}

/** "redis-cache: planned by the Coder, kept by the final decisions, never built". */
export function droppedStory(
  module: string,
  plannedBy: readonly string[],
  agents: AgentDirectory,
): string {
  const who = plannedBy.map((agentId) => agentNoun(agentId, agents)).join(" and ");
  return `${module}: planned by ${who || "nobody"}; the final decisions keep it, and it was never built`;
}
