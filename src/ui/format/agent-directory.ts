import type { AgentInfo, ScenarioEvent } from "../../scenario/scenario-events.js";

/** Looks up how an agent is shown (name, colour) from its id. */
export interface AgentDirectory {
  name(agentId: string): string;
  color(agentId: string): string | undefined;
  readonly agents: readonly AgentInfo[];
}

/** "coder-1" -> "Coder-1": a readable fallback for ids the run-start did not announce. */
function nameFromId(agentId: string): string {
  return agentId.length > 0 ? agentId[0]?.toUpperCase() + agentId.slice(1) : agentId;
}

/** A directory over the agents a run announced in its `run-start` event. */
export function createAgentDirectory(agents: readonly AgentInfo[]): AgentDirectory {
  const byId = new Map(agents.map((agent) => [agent.id, agent]));
  return {
    agents,
    name: (agentId) => byId.get(agentId)?.name ?? nameFromId(agentId),
    color: (agentId) => byId.get(agentId)?.color,
  };
}

/** The directory for a stream of events (from its run-start, if it has one yet). */
export function agentDirectoryOf(events: readonly ScenarioEvent[]): AgentDirectory {
  for (const event of events) {
    if (event.type === "run-start") return createAgentDirectory(event.agents);
  }
  return createAgentDirectory([]);
}
