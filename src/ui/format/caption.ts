import type { ScenarioEvent } from "../../scenario/scenario-events.js";
import { formatRelative } from "./duration.js";

/** An agent as the scenario describes it (the part the caption needs). */
export interface FocusAgent {
  readonly id: string;
  readonly name: string;
  readonly role: string;
  readonly modules?: readonly string[];
  readonly decisions?: ReadonlyArray<{ readonly target: string; readonly value: string }>;
}

/**
 * What the demo's caption tells the viewer to watch, taken from the scenario before anything runs:
 * the module where the two pipelines will differ, and why.
 */
export type ScenarioFocus =
  | {
      readonly kind: "decision";
      readonly module: string;
      /** Who decides, as the subject of a sentence ("the Planner", "Planner A"). */
      readonly decider: string;
      readonly value: string;
    }
  | {
      readonly kind: "dispute";
      readonly module: string;
      readonly sides: ReadonlyArray<{ readonly agent: string; readonly value: string }>;
    }
  | { readonly kind: "claim"; readonly module: string; readonly builders: readonly string[] };

/** "the Planner" when the name is just the role (a job title takes an article), else the name. */
function subject(agent: FocusAgent): string {
  return agent.name.toLowerCase() === agent.role.toLowerCase() ? `the ${agent.name}` : agent.name;
}

function decisionsOf(agents: readonly FocusAgent[]) {
  return agents.flatMap((agent) =>
    (agent.decisions ?? []).map((decision) => ({ agent, ...decision })),
  );
}

/**
 * The scenario's focus: a module a planner retires while a coder plans to build it; else a module
 * planners decide differently; else a module two coders both plan to build; else the first
 * decision. Undefined when the scenario names none (a free-text `--task`).
 */
export function scenarioFocus(scenario: {
  readonly agents: readonly FocusAgent[];
}): ScenarioFocus | undefined {
  const decisions = decisionsOf(scenario.agents);
  const planned = new Map<string, FocusAgent[]>();
  for (const agent of scenario.agents) {
    for (const module of agent.modules ?? [])
      planned.set(module, [...(planned.get(module) ?? []), agent]);
  }
  const disputed = decisions.find((decision) =>
    decisions.some((other) => other.target === decision.target && other.value !== decision.value),
  );
  if (disputed) {
    const sides = decisions.filter((decision) => decision.target === disputed.target);
    return {
      kind: "dispute",
      module: disputed.target,
      sides: sides.map((side) => ({ agent: subject(side.agent), value: side.value })),
    };
  }
  const contested =
    decisions.find(
      (decision) => /^deprecat/i.test(decision.value) && planned.has(decision.target),
    ) ?? undefined;
  if (contested) {
    return {
      kind: "decision",
      module: contested.target,
      decider: subject(contested.agent),
      value: contested.value,
    };
  }
  for (const [module, builders] of planned) {
    if (builders.length > 1) return { kind: "claim", module, builders: builders.map(subject) };
  }
  const first = decisions[0];
  return first
    ? { kind: "decision", module: first.target, decider: subject(first.agent), value: first.value }
    : undefined;
}

/** "deprecates"/"deprecated", "keeps"/"kept", else "decides <value> on". */
function verb(value: string, past: boolean): string {
  if (/^deprecat/i.test(value)) return past ? "deprecated" : "deprecates";
  if (/^keep/i.test(value)) return past ? "kept" : "keeps";
  return past ? `decided "${value}" on` : `decides "${value}" on`;
}

function joinNames(names: readonly string[]): string {
  if (names.length <= 2) return names.join(" and ");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** When the focus module was first decided in one pipeline, relative to its run-start. */
function decidedAt(focus: ScenarioFocus, events: readonly ScenarioEvent[]): number | undefined {
  const start = events.find((event) => event.type === "run-start")?.at ?? 0;
  const decided = events.find(
    (event) => event.type === "decision-write" && event.target === focus.module,
  );
  return decided ? decided.at - start : undefined;
}

/**
 * The one-line caption: "Watch legacy-session-token: the Planner deprecates it", and once a
 * pipeline has published the decision, "…: the Planner deprecated it at T+2.7s" (the earliest).
 * @param panes each pane's events so far
 */
export function formatCaption(
  focus: ScenarioFocus,
  ...panes: ReadonlyArray<readonly ScenarioEvent[]>
): string {
  const times = panes.flatMap((events) => decidedAt(focus, events) ?? []);
  const decided = times.length > 0 ? Math.min(...times) : undefined;
  const when = decided !== undefined ? ` at ${formatRelative(decided)}` : "";
  const lead = `Watch ${focus.module}: `;
  switch (focus.kind) {
    case "decision":
      return `${lead}${focus.decider} ${verb(focus.value, decided !== undefined)} it${when}`;
    case "dispute":
      return `${lead}${focus.sides.map((side) => `${side.agent} ${verb(side.value, false)} it`).join(", ")}: who wins?`;
    case "claim":
      return `${lead}${joinNames(focus.builders)} both plan to build it`;
  }
}
