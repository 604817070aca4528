import {
  decisionsFromText,
  decomposeTask,
  type PlannedModule,
  planFromText,
  type ReadClause,
  type SentenceDecision,
  type TaskSlices,
} from "../../agents/decompose-task.js";
import type { ScenarioInput } from "../../coordination/scenario-schema.js";

/**
 * The team a lead would put on a free-text task, as a scenario (the same data a shipped scenario
 * is), so that `run --task`, `demo --task`, `scenario init --task` and `--scenario` on the file
 * it writes all run the same thing. How a real team starts:
 *
 * - the Planners deliberate on what the task decides (retire, replace, keep, migrate), one per
 *   sentence that decides, and take their time (`plannerThinkMs`);
 * - each piece of work gets its own Coder (up to {@link maxCoders}): every module the task asks to
 *   build, with the existing modules the same clause touches, and every module the task updates;
 * - an existing module the task decides about is in use until the decision lands: keeping it
 *   working (porting it to the new code) is real work for a Coder, started at once, while the
 *   Planners decide. It is in the brief because the task names the module, whatever the decision
 *   will be: nothing is put into a brief because it was decided;
 * - slices that touch the same module overlap, so claims matter.
 *
 * Planners read their decisions from their slices (nothing is written down for them); each Coder's
 * modules are written down, with where each came from. Pure and deterministic.
 */

/** At most this many Coders: more pieces of work are dealt round to them. */
export const maxCoders = 4;
/** At most this many Planners: more sentences that decide are dealt round to them. */
export const maxPlanners = 3;
/** How long a Planner deliberates before it publishes (scenario ms): deciding takes time. */
export const plannerThinkMs = 7000;
/** Work on an existing module (callers to find, data to move) takes longer than a new one. */
export const existingModuleMs = 8000;

/** One piece of a Coder's slice, with where it came from. */
export interface SlicePiece {
  module: string;
  /** `new`: the task asks for it; `existing`: a module the project already has. */
  kind: "new" | "existing";
  /** Why it is in this slice, for people: "the task asks for it: 'Build …'". */
  from: string;
  /** The clause of the task it came from, as written. */
  clause: string;
}

/** One agent of the team, with what its slice is made of. */
export interface TeamMember {
  id: string;
  role: "planner" | "coder" | "reviewer";
  name: string;
  slice: string;
  /** Coders: the modules of the slice, in order, each with where it came from. */
  pieces: SlicePiece[];
  /** Planners: the clauses of the task their slice is made of. */
  clauses: string[];
  /** Planners: what the offline brain reads from the slice. */
  decisions: SentenceDecision[];
}

/** What the rules understood of the task: `--json`'s `understood`. */
export interface TaskUnderstanding {
  decisions: Array<{ target: string; value: "deprecate" | "keep"; clause: string }>;
  work: Array<{ module: string; kind: "new" | "existing"; clause: string }>;
  /** The clauses the rules read nothing from, as written. */
  unparsed: string[];
}

/** Where the team's slices meet: what coordination can change on this task. */
export interface TeamOverlaps {
  /** Modules a Coder works on that a Planner decides about. */
  decided: Array<{ module: string; coders: string[]; planners: string[] }>;
  /** Modules in more than one Coder's slice. */
  shared: Array<{ module: string; coders: string[] }>;
}

/** A task's team and the scenario that runs it. */
export interface TaskTeam {
  task: string;
  understood: TaskUnderstanding;
  members: TeamMember[];
  overlaps: TeamOverlaps;
  /** True when the rules found work for at least one Coder. */
  hasWork: boolean;
  /** The scenario, as a file would hold it (validate it with `parseScenario`). */
  scenario: ScenarioInput;
}

const coderColors = ["magenta", "green", "blue", "red"];
const plannerColors = ["cyan", "white", "gray"];

function quote(clause: string): string {
  return `'${clause}'`;
}

function asSentence(clause: string): string {
  return `${clause.charAt(0).toUpperCase()}${clause.slice(1)}.`;
}

/** "replace-legacy-password-reset": a kebab-case name from the task's first words. */
export function scenarioNameOf(task: string): string {
  const name = task
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim()
    .split(/\s+/)
    .filter(
      (word) =>
        ![
          "the",
          "a",
          "an",
          "and",
          "our",
          "please",
          "we",
          "to",
          "of",
          "for",
          "with",
          "in",
          "on",
        ].includes(word),
    )
    .slice(0, 4)
    .join("-");
  return name === "" ? "my-task" : name;
}

/**
 * The pieces of work, in the task's order: per work clause, one piece per module it asks to build
 * (each with the existing modules that clause touches), or one per existing module it works on;
 * then one per decided module no piece touches yet (keeping it working while it is decided).
 */
function piecesOf(clauses: readonly ReadClause[], inventory: readonly string[]): SlicePiece[][] {
  const pieces: SlicePiece[][] = [];
  for (const { clause, reading } of clauses) {
    if (!reading.asksForWork && reading.builds.length === 0) continue;
    const plan: PlannedModule[] = planFromText(asSentence(clause), inventory);
    const toPiece = (entry: PlannedModule): SlicePiece => ({
      module: entry.module,
      kind: entry.kind,
      clause,
      from:
        entry.kind === "new"
          ? `the task asks for it: ${quote(clause)}`
          : `an existing module the task's work touches: ${quote(clause)}`,
    });
    const built = plan.filter((entry) => entry.kind === "new");
    const touched = plan.filter((entry) => entry.kind === "existing");
    if (built.length > 0) {
      for (const entry of built) pieces.push([toPiece(entry), ...touched.map(toPiece)]);
    } else {
      for (const entry of touched) pieces.push([toPiece(entry)]);
    }
  }
  const worked = new Set(pieces.flat().map((piece) => piece.module));
  for (const { clause, reading } of clauses) {
    for (const decision of reading.decisions) {
      if (worked.has(decision.target)) continue;
      worked.add(decision.target);
      pieces.push([
        {
          module: decision.target,
          kind: "existing",
          clause,
          from: `an existing module the task names, in use until the team decides: ${quote(clause)}`,
        },
      ]);
    }
  }
  return pieces;
}

/** Whether a piece is the work on a module the task decides about (see {@link piecesOf}). */
function isNamedExisting(piece: SlicePiece): boolean {
  return piece.from.startsWith("an existing module the task names");
}

/**
 * What a Coder's slice says: each clause it works from, as the task wrote it, and its part. Work
 * on a module the task decides about quotes no deciding clause: the brief is the same whatever
 * the decision will be (the Planners make it; the Coder learns it only through coordination).
 */
function coderSlice(pieces: readonly SlicePiece[]): string {
  const byClause = new Map<string, SlicePiece[]>();
  for (const piece of pieces) {
    const key = isNamedExisting(piece) ? `existing:${piece.module}` : piece.clause;
    byClause.set(key, [...(byClause.get(key) ?? []), piece]);
  }
  return [...byClause.entries()]
    .map(([key, group]) => {
      const [first] = group;
      if (first !== undefined && key.startsWith("existing:")) {
        return `${first.module} is an existing module the task names, in use today. Your part: keep ${first.module} working with the new code (port it).`;
      }
      const parts = group.map((piece) =>
        piece.kind === "new" ? `build ${piece.module}` : `update ${piece.module}`,
      );
      return `${asSentence(first?.clause ?? "")} Your part: ${parts.join(", then ")}.`;
    })
    .join(" ");
}

/**
 * The Planners' slices: the clauses that decide, grouped by sentence (an exception or a pronoun
 * stays with the clause it is about), dealt round to at most {@link maxPlanners}.
 */
function plannerGroups(clauses: readonly ReadClause[]): string[][] {
  const groups: Array<{ sentence: number; targets: Set<string>; clauses: string[] }> = [];
  let previous: (typeof groups)[number] | undefined;
  for (const { clause, sentence, reading } of clauses) {
    if (reading.decisions.length === 0) continue;
    const targets = reading.decisions.map((decision) => decision.target);
    const named = targets.every((target) =>
      decisionsFromText(clause).some((alone) => alone.target === target),
    );
    // "Keep it until March": read alone, the clause names nothing; it joins the clause it is
    // about. A clause about a module another clause decides joins that one too, so one Planner
    // weighs both (the later is the exception), as the task's reader does.
    const home =
      (!named ? previous : undefined) ??
      groups.find((group) => targets.some((target) => group.targets.has(target))) ??
      groups.find((group) => group.sentence === sentence);
    const group = home ?? { sentence, targets: new Set<string>(), clauses: [] };
    if (home === undefined) groups.push(group);
    group.clauses.push(clause);
    for (const target of targets) group.targets.add(target);
    previous = group;
  }
  const count = Math.min(groups.length, maxPlanners);
  const dealt: string[][] = Array.from({ length: count }, () => []);
  groups.forEach((group, index) => {
    dealt[index % count]?.push(...group.clauses);
  });
  return dealt;
}

function overlapsOf(members: readonly TeamMember[]): TeamOverlaps {
  const coders = members.filter((member) => member.role === "coder");
  const planners = members.filter((member) => member.role === "planner");
  const codersOf = (module: string) =>
    coders
      .filter((coder) => coder.pieces.some((piece) => piece.module === module))
      .map((c) => c.id);
  const modules = [
    ...new Set(coders.flatMap((coder) => coder.pieces.map((piece) => piece.module))),
  ];
  return {
    decided: modules
      .map((module) => ({
        module,
        coders: codersOf(module),
        planners: planners
          .filter((planner) => planner.decisions.some((decision) => decision.target === module))
          .map((planner) => planner.id),
      }))
      .filter((entry) => entry.planners.length > 0),
    shared: modules
      .map((module) => ({ module, coders: codersOf(module) }))
      .filter((entry) => entry.coders.length > 1),
  };
}

/** Puts a team on a free-text task. */
export function buildTaskTeam(task: string): TaskTeam {
  const slices = decomposeTask(task);
  const pieces = piecesOf(slices.clauses, slices.inventory);
  const members = [
    ...plannerMembers(task, slices.clauses),
    ...coderMembers(task, pieces),
    reviewerMember(),
  ];
  return {
    task,
    understood: understandingOf(slices, pieces),
    members,
    overlaps: overlapsOf(members),
    hasWork: pieces.length > 0,
    scenario: scenarioOf(task, members, existingModulesOf(slices.inventory, pieces)),
  };
}

/** The Planners, one per group of deciding clauses; one Planner on the whole task when none decides. */
function plannerMembers(task: string, clauses: readonly ReadClause[]): TeamMember[] {
  const groups = plannerGroups(clauses);
  const plannerSlices =
    groups.length > 0
      ? groups.map((group) => group.map(asSentence).join(" "))
      : [`Decide the architecture for: ${task.trim()}`];
  return plannerSlices.map((slice, index) => ({
    id: plannerSlices.length === 1 ? "planner" : `planner-${index + 1}`,
    role: "planner",
    name: plannerSlices.length === 1 ? "Planner" : `Planner ${index + 1}`,
    slice,
    pieces: [],
    clauses: groups[index] ?? [],
    decisions: decisionsFromText(slice),
  }));
}

/**
 * The Coders: the pieces of work dealt round to at most {@link maxCoders}; one Coder on the whole
 * task when the rules found no work.
 */
function coderMembers(task: string, pieces: readonly SlicePiece[][]): TeamMember[] {
  const coderCount = Math.max(1, Math.min(pieces.length, maxCoders));
  const dealt: SlicePiece[][] = Array.from({ length: coderCount }, () => []);
  pieces.forEach((piece, index) => {
    dealt[index % coderCount]?.push(...piece);
  });
  return dealt.map((coderPieces, index) => {
    // One module once per Coder, at its first place.
    const unique = coderPieces.filter(
      (piece, at) => coderPieces.findIndex((other) => other.module === piece.module) === at,
    );
    return {
      id: coderCount === 1 ? "coder" : `coder-${index + 1}`,
      role: "coder",
      name: coderCount === 1 ? "Coder" : `Coder ${index + 1}`,
      slice: unique.length > 0 ? coderSlice(unique) : task.trim(),
      pieces: unique,
      clauses: [],
      decisions: [],
    };
  });
}

/** The one Reviewer, the same on every task. */
function reviewerMember(): TeamMember {
  return {
    id: "reviewer",
    role: "reviewer",
    name: "Reviewer",
    slice: "Review the finished work against the decisions that were made.",
    pieces: [],
    clauses: [],
    decisions: [],
  };
}

/** What the rules read from the task: its decisions, its work (each module once), what they could not read. */
function understandingOf(slices: TaskSlices, pieces: readonly SlicePiece[][]): TaskUnderstanding {
  return {
    decisions: slices.decisions.map((decision) => ({
      target: decision.target,
      value: decision.value,
      // The clause as written (the decision's content is it as a sentence).
      clause:
        slices.clauses.findLast(({ reading }) =>
          reading.decisions.some(
            (read) => read.target === decision.target && read.value === decision.value,
          ),
        )?.clause ?? decision.content,
    })),
    work: pieces
      .flat()
      .filter((piece, at, all) => all.findIndex((other) => other.module === piece.module) === at)
      .map((piece) => ({ module: piece.module, kind: piece.kind, clause: piece.clause })),
    unparsed: slices.unparsed,
  };
}

/** The modules the project already has: the task's inventory and every existing module worked on. */
function existingModulesOf(
  inventory: readonly string[],
  pieces: readonly SlicePiece[][],
): string[] {
  return [
    ...new Set([
      ...inventory,
      ...pieces
        .flat()
        .filter((p) => p.kind === "existing")
        .map((p) => p.module),
    ]),
  ];
}

/** The scenario the team runs, as a file would hold it; work on an existing module takes longer. */
function scenarioOf(
  task: string,
  members: readonly TeamMember[],
  existing: string[],
): ScenarioInput {
  return {
    name: scenarioNameOf(task),
    title: task.length > 60 ? `${task.slice(0, 57)}…` : task,
    task,
    agents: scenarioAgentsOf(members),
    inventory: existing,
    timings: {
      thinkMs: 1500,
      moduleMs: 4000,
      reviewMs: 2000,
      jitterMs: 400,
      moduleMsByName: Object.fromEntries(existing.map((module) => [module, existingModuleMs])),
    },
    costs: { tokensPerThink: 350, tokensPerModule: 2400, tokensPerReview: 900 },
  };
}

/** The members as the scenario's agents: each role's colours dealt round, a Planner's time to decide. */
function scenarioAgentsOf(members: readonly TeamMember[]): ScenarioInput["agents"] {
  let plannerIndex = 0;
  let coderIndex = 0;
  return members.map((member) => {
    const common = { id: member.id, role: member.role, name: member.name };
    if (member.role === "planner") {
      return {
        ...common,
        color: plannerColors[plannerIndex++ % plannerColors.length] ?? "cyan",
        thinkMs: plannerThinkMs,
        slice: member.slice,
      };
    }
    if (member.role === "coder") {
      return {
        ...common,
        color: coderColors[coderIndex++ % coderColors.length] ?? "magenta",
        slice: member.slice,
        ...(member.pieces.length > 0
          ? { modules: member.pieces.map((piece) => piece.module) }
          : {}),
      };
    }
    return { ...common, color: "yellow", slice: member.slice };
  });
}
