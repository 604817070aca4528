import type { AgentDirectory } from "./agent-directory.js";

/**
 * The shared state's own encodings, said as meaning: `claimed-by:coder-2` → "claimed by Coder 2",
 * `deprecated-by:planner` → "deprecated by Planner". `timeline --raw` shows them as stored.
 */
export function humanizeEncodings(text: string, agents: AgentDirectory): string {
  return text.replace(
    /\b(claimed|deprecated|kept|owned)-by:([\w.-]+)/g,
    (_match, verb: string, agentId: string) => `${verb} by ${agents.name(agentId)}`,
  );
}
