import { decisionsFromText, decomposeTask, planFromText } from "../../agents/decompose-task.js";
import type { PlannedDecision, Scenario } from "../../coordination/scenario-schema.js";
import type { ScenarioEvent } from "../scenario-events.js";

/**
 * What coordination can change on a scenario, read before it runs (`scenario check`, `run
 * --task`), and whether two runs did the same work, read after (`demo --task`). Both are pure:
 * the first from the scenario as the offline brain reads it, the second from the runs' events, so
 * a tie is reported from what the agents actually did, whatever verdict the runs reach.
 */

/** The sentence for a task where coordination has nothing to change. */
export const nothingToCoordinate = "Nothing here to coordinate: every mode does the same work";

/** One place where the modes can differ, and what each mode will face there. */
export interface ModeFace {
  module: string;
  kind: "decided" | "shared" | "disputed" | "agreed";
  /** One line for people: who meets whom on the module, and what each mode does about it. */
  text: string;
}

/** What each mode will face on a scenario. */
export interface ScenarioFaces {
  /** Per Coder, the modules it will work on (as the offline brain plans them). */
  modules: Array<{ agentId: string; modules: string[] }>;
  /** Per Planner, what it will decide (as the offline brain reads it). */
  decisions: Array<{
    agentId: string;
    decisions: Array<{ target: string; value: PlannedDecision["value"] }>;
  }>;
  faces: ModeFace[];
  /** True when no face can make the modes differ: every mode does the same work. */
  nothing: boolean;
  /** Why there is nothing to coordinate, when there is nothing. */
  why?: string;
}

function list(names: readonly string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * Reads a scenario as the offline brain will: each Coder's modules (its `modules`, else the plan
 * its slice gives), each Planner's decisions (its `decisions`, else those its slice states), and
 * where they meet. A model may plan and decide otherwise; the check says what the rules see.
 */
export function whatModesFace(scenario: Scenario): ScenarioFaces {
  const team = teamPlans(scenario);
  const touched = [...new Set(team.coders.flatMap((coder) => coder.modules))];
  const targets = [
    ...new Set(team.planners.flatMap((planner) => planner.decisions.map((d) => d.target))),
  ];
  const faces: ModeFace[] = [
    ...targets.flatMap((target) => decidedFace(target, team) ?? []),
    ...touched.flatMap((module) => sharedFace(module, team) ?? []),
  ];
  const nothing = faces.every((face) => face.kind === "agreed");
  return {
    modules: team.coders.map(({ agentId, modules: planned }) => ({ agentId, modules: planned })),
    decisions: team.planners,
    faces,
    nothing,
    ...(nothing ? { why: whyNothing(targets.length, touched.length, faces.length > 0) } : {}),
  };
}

/** What the offline brain will plan and decide on a scenario, agent by agent. */
interface TeamPlans {
  coders: Array<{ agentId: string; modules: string[]; startAtMs: number }>;
  planners: ScenarioFaces["decisions"];
  /** An agent's name, for people (its id when the scenario has no such agent). */
  name(agentId: string): string;
}

/** Each Coder's modules and each Planner's decisions, as the offline brain reads the scenario. */
function teamPlans(scenario: Scenario): TeamPlans {
  const fallback = decomposeTask(scenario.task);
  return {
    coders: scenario.agents
      .filter((agent) => agent.role === "coder")
      .map((agent) => ({
        agentId: agent.id,
        modules:
          agent.modules ??
          planFromText(agent.slice ?? fallback.coder, scenario.inventory).map(
            (entry) => entry.module,
          ),
        startAtMs: agent.startAtMs,
      })),
    planners: scenario.agents
      .filter((agent) => agent.role === "planner")
      .map((agent) => ({
        agentId: agent.id,
        decisions: (agent.decisions ?? decisionsFromText(agent.slice ?? fallback.planner)).map(
          (decision) => ({ target: decision.target, value: decision.value }),
        ),
      })),
    name: (agentId) => scenario.agents.find((agent) => agent.id === agentId)?.name ?? agentId,
  };
}

/** The Coders whose modules include `module`. */
function codersOn(module: string, team: TeamPlans): string[] {
  return team.coders
    .filter((coder) => coder.modules.includes(module))
    .map((coder) => coder.agentId);
}

/**
 * What the modes face on a module the Planners decide about: a dispute when they disagree; else,
 * when a Coder works on it, agreement (kept) or work against the decision (retired).
 */
function decidedFace(target: string, team: TeamPlans): ModeFace | undefined {
  const { name } = team;
  const deciders = team.planners.flatMap((planner) =>
    planner.decisions
      .filter((decision) => decision.target === target)
      .map((decision) => ({ agentId: planner.agentId, value: decision.value })),
  );
  const workers = codersOn(target, team);
  const values = new Set(deciders.map((decider) => decider.value));
  if (values.size > 1) {
    const sides = deciders.map((decider) => `${name(decider.agentId)} says ${decider.value}`);
    return {
      module: target,
      kind: "disputed",
      text: `${target}: ${list(sides)}. naive and broadcast: nobody is told the two contradict each other; statewave: the dispute is surfaced and work on ${target} is held until it is settled (dispute surfaced).`,
    };
  }
  if (workers.length === 0) return undefined;
  const planners = list(deciders.map((decider) => name(decider.agentId)));
  const coders = list(workers.map(name));
  if (values.has("keep")) {
    return {
      module: target,
      kind: "agreed",
      text: `${target}: ${planners} decides to keep it, which agrees with ${coders}'s work on it: nothing to coordinate there.`,
    };
  }
  const late = team.coders.some((coder) => workers.includes(coder.agentId) && coder.startAtMs > 0);
  return {
    module: target,
    kind: "decided",
    text:
      // "Coder 1 and Coder 3 work on it": the verb agrees with how many there are.
      `${target}: ${coders} ${workers.length > 1 ? "work" : "works"} on it while ${planners} ${new Set(deciders.map((decider) => decider.agentId)).size > 1 ? "decide" : "decides"} to retire it. ` +
      "naive: nobody tells the Coder, the Reviewer finds the waste afterwards; " +
      "broadcast: the message is read at the Coder's next read, before its next module, never during a build; " +
      `statewave: read before each module, and the decision reaches a build in flight (mid-build invalidation)${late ? "; a late joiner reads what was decided before it joined (history for a late joiner)" : ""}.`,
  };
}

/** What the modes face on a module in more than one Coder's slice. */
function sharedFace(module: string, team: TeamPlans): ModeFace | undefined {
  const workers = codersOn(module, team);
  if (workers.length < 2) return undefined;
  return {
    module,
    kind: "shared",
    text: `${module}: in the slices of ${list(workers.map(team.name))}. naive: each one builds it; broadcast: a claim is a message, read only at the next read, so Coders who claim it at the same moment both build it; statewave: one claim wins and the others skip it (atomic claim).`,
  };
}

function whyNothing(decided: number, worked: number, agreed: boolean): string {
  if (worked === 0) return "no Coder has a module to work on";
  if (agreed)
    return "every decision keeps what the Coders work on, and no two slices share a module";
  if (decided === 0) return "nothing is decided, and no two slices share a module";
  return "no slice touches a module the Planners retire, and no two slices share a module";
}

/** What a run's agents did to modules: "coder-1 built x", "coder-2 skipped y", sorted. */
export function workDone(events: readonly ScenarioEvent[]): string[] {
  const done: string[] = [];
  for (const event of events) {
    if (event.type === "module-end") done.push(`${event.agentId} built ${event.module}`);
    else if (event.type === "module-cancel")
      done.push(`${event.agentId} cancelled ${event.module}`);
    else if (event.type === "module-skip") done.push(`${event.agentId} skipped ${event.module}`);
    else if (event.type === "module-hold") done.push(`${event.agentId} held ${event.module}`);
  }
  return done.sort();
}

/** Whether two runs (of one scenario, in two modes) did the same work, module by module. */
export function sameWork(
  first: readonly ScenarioEvent[],
  second: readonly ScenarioEvent[],
): boolean {
  const a = workDone(first);
  const b = workDone(second);
  return a.length === b.length && a.every((entry, index) => entry === b[index]);
}
