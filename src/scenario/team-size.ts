import type { AgentSpec, Scenario } from "../coordination/scenario-schema.js";

/**
 * The scenario with `size` Coders instead of its own: Coder i follows the scenario's Coder
 * number ((i - 1) mod n) + 1, and a copy beyond the scenario's own team builds copies of that
 * Coder's modules (`<module>-t<k>`), so a larger team has more work, never the same module twice
 * (a sweep measures what each mode must read and send as the team grows, not claim races).
 */
export function withTeamSize(scenario: Scenario, size: number): Scenario {
  if (!Number.isInteger(size) || size < 1) {
    throw new RangeError(`a team size is a whole number of Coders >= 1 (got ${size})`);
  }
  const coders = scenario.agents.filter((agent) => agent.role === "coder");
  const others = scenario.agents.filter((agent) => agent.role !== "coder");
  const team: AgentSpec[] = [];
  for (let index = 0; index < size; index += 1) {
    const template = coders[index % coders.length] as AgentSpec;
    const copy = Math.floor(index / coders.length);
    team.push({
      ...template,
      id: `coder-${index + 1}`,
      name: `Coder ${index + 1}`,
      ...(template.modules && copy > 0
        ? { modules: template.modules.map((module) => `${module}-t${copy}`) }
        : {}),
    });
  }
  const planners = others.filter((agent) => agent.role === "planner");
  const reviewers = others.filter((agent) => agent.role === "reviewer");
  const { expected: _expected, ...rest } = scenario;
  return {
    ...rest,
    name: `${scenario.name}-x${size}`,
    agents: [...planners, ...team, ...reviewers],
  };
}
