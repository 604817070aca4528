import {
  type Authority,
  compareAuthority,
  defaultAuthority,
  mayOverrule,
} from "../../context/authority.js";
import type { ModuleJudgement, ScenarioEvent } from "../../coordination/run-events.js";

/** One decision as the run's events recorded it, with what its author had read by then. */
export interface DecisionRecord {
  readonly id: string;
  readonly by: string;
  readonly target: string;
  readonly value: string;
  readonly replacement?: string;
  readonly content: string;
  /** Scenario milliseconds. */
  readonly at: number;
  /** Its index in the run's events: the order decisions and actions happened in. */
  readonly position: number;
  /** The earlier decisions on the same target it overrules (its author had read them, or wrote them). */
  readonly overrules: ReadonlySet<string>;
  /** How it was established (`agent` when the event names none). */
  readonly authority: Authority;
}

/** A module's fate as one set of decisions gives it, before dependencies are followed. */
export type Fate = ModuleJudgement["fate"];

/** The values that take a module out of the plan. */
const retiringValues = new Set(["deprecate", "replace"]);

/**
 * Which decisions each agent had received, event by event: a read delivers decisions by id
 * (`decisionIds`), or, for runs recorded before ids existed, by their line (`by: content`).
 */
function receivedByAgent(
  events: readonly ScenarioEvent[],
  idOfLine: ReadonlyMap<string, string>,
): Map<string, Array<{ position: number; ids: readonly string[] }>> {
  const received = new Map<string, Array<{ position: number; ids: readonly string[] }>>();
  events.forEach((event, position) => {
    if (event.type !== "context-read") return;
    const ids =
      event.decisionIds ??
      // Records written before reads carried ids (and partial ones) may lack the lines too.
      (event.decisions ?? []).flatMap((line) => {
        const id = idOfLine.get(line);
        return id === undefined ? [] : [id];
      });
    const list = received.get(event.agentId) ?? [];
    list.push({ position, ids });
    received.set(event.agentId, list);
  });
  return received;
}

/**
 * The run's decisions in the order they were written, each with the decisions it overrules: a
 * decision overrules the earlier ones on its target that its author had read (any read before it)
 * or had written itself. Decisions made without seeing each other overrule nothing: both stand.
 */
export function decisionHistory(events: readonly ScenarioEvent[]): DecisionRecord[] {
  const counts = new Map<string, number>();
  const written: Array<Omit<DecisionRecord, "overrules">> = [];
  events.forEach((event, position) => {
    if (event.type !== "decision-write") return;
    const count = (counts.get(event.agentId) ?? 0) + 1;
    counts.set(event.agentId, count);
    written.push({
      id: event.decisionId ?? `${event.agentId}#${count}`,
      by: event.agentId,
      target: event.target,
      value: event.value,
      ...(event.replacement !== undefined ? { replacement: event.replacement } : {}),
      content: event.content,
      at: event.at,
      position,
      authority: event.authority ?? defaultAuthority,
    });
  });
  const idOfLine = new Map(
    written.map((decision) => [`${decision.by}: ${decision.content}`, decision.id]),
  );
  const received = receivedByAgent(events, idOfLine);
  return written.map((decision) => {
    const read = new Set(
      (received.get(decision.by) ?? [])
        .filter((entry) => entry.position < decision.position)
        .flatMap((entry) => entry.ids),
    );
    const overrules = new Set(
      written
        .filter(
          (earlier) =>
            earlier.position < decision.position &&
            earlier.target === decision.target &&
            // A lower class never overrules a higher one, informed or not (as the stores rule).
            mayOverrule(decision.authority, earlier.authority) &&
            (earlier.by === decision.by || read.has(earlier.id)),
        )
        .map((earlier) => earlier.id),
    );
    return { ...decision, overrules };
  });
}

/** The decisions standing just before event `position` (all of them for `Infinity`), by target. */
export function activeDecisions(
  history: readonly DecisionRecord[],
  position = Number.POSITIVE_INFINITY,
): Map<string, DecisionRecord[]> {
  const written = history.filter((decision) => decision.position < position);
  const overruled = new Set(written.flatMap((decision) => [...decision.overrules]));
  const byTarget = new Map<string, DecisionRecord[]>();
  for (const decision of written) {
    if (overruled.has(decision.id)) continue;
    byTarget.set(decision.target, [...(byTarget.get(decision.target) ?? []), decision]);
  }
  return byTarget;
}

/** The standing decisions of the highest class among them: those that rule (see {@link fateOf}). */
export function rulingDecisions(standing: readonly DecisionRecord[]): DecisionRecord[] {
  const highest = standing.reduce<Authority>(
    (best, decision) =>
      compareAuthority(decision.authority, best) > 0 ? decision.authority : best,
    standing[0]?.authority ?? defaultAuthority,
  );
  return standing.filter((decision) => decision.authority === highest);
}

/**
 * What a set of standing decisions on one target says: one fate, or a dispute. Only the highest
 * class among them rules: a person's decision stands against an agent's contrary one, which can
 * never overrule it (only a decision of at least the person's class can), so the agent's is no
 * open question for the work.
 */
export function fateOf(standing: readonly DecisionRecord[] | undefined): Fate {
  if (standing === undefined || standing.length === 0) return "undecided";
  const ruling = rulingDecisions(standing);
  const rulings = new Set(
    ruling.map((decision) => `${decision.value}>${decision.replacement ?? ""}`),
  );
  if (rulings.size > 1) return "disputed";
  return retiringValues.has(ruling[0]?.value ?? "") ? "retired" : "kept";
}

/**
 * A module's fate with its dependencies followed: retired when it or any module it depends on
 * (transitively) is retired; else disputed when any of them is disputed; else its own fate.
 */
export function effectiveFate(
  module: string,
  active: ReadonlyMap<string, readonly DecisionRecord[]>,
  dependsOn: ReadonlyMap<string, readonly string[]>,
): Fate {
  const seen = new Set<string>();
  const fates: Fate[] = [];
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    fates.push(fateOf(active.get(name)));
    for (const dependency of dependsOn.get(name) ?? []) visit(dependency);
  };
  visit(module);
  if (fates.includes("retired")) return "retired";
  if (fates.includes("disputed")) return "disputed";
  return fates[0] ?? "undecided";
}

/** The standing decision that retires `module` (itself, else the nearest dependency), if any. */
export function retiringDecision(
  module: string,
  active: ReadonlyMap<string, readonly DecisionRecord[]>,
  dependsOn: ReadonlyMap<string, readonly string[]>,
): DecisionRecord | undefined {
  const seen = new Set<string>();
  const queue = [module];
  while (queue.length > 0) {
    const name = queue.shift() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    const standing = active.get(name);
    if (fateOf(standing) === "retired") return rulingDecisions(standing ?? [])[0];
    queue.push(...(dependsOn.get(name) ?? []));
  }
  return undefined;
}
