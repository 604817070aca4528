import type { TaskTeam, TeamMember } from "./build-task-team.js";

/**
 * `shared-ctx scenario init`: a task's team as an editable scenario file, with comments saying
 * what each field does and where each piece of each slice came from. Run unchanged with
 * `--scenario`, it plays exactly what `run --task` plays (the same scenario, field for field).
 */

/** A YAML scalar: JSON's double-quoted strings are valid YAML, and say plainly what is text. */
function text(value: string): string {
  return JSON.stringify(value);
}

function names(values: readonly string[]): string {
  return `[${values.join(", ")}]`;
}

/** A value with a comment after it, aligned for reading. */
function line(indent: number, key: string, value: string, comment?: string): string {
  const body = `${" ".repeat(indent)}${key}: ${value}`;
  return comment === undefined ? body : `${body.padEnd(40)} # ${comment}`;
}

function memberComments(member: TeamMember): string[] {
  if (member.role === "planner") {
    const decided =
      member.decisions.length > 0
        ? member.decisions.map((decision) => `${decision.value} ${decision.target}`).join(", ")
        : "nothing (its slice states no decision)";
    return [
      `# ${member.name}: deliberates, then publishes what it decides from its slice. The offline`,
      `# brain reads: ${decided}. Add \`decisions:\` to fix what it decides instead.`,
      ...member.clauses.map((clause) => `#   from the task: '${clause}'`),
    ];
  }
  if (member.role === "coder") {
    return [
      `# ${member.name}: works on its modules in order, reading what is known before each one.`,
      ...member.pieces.map((piece) => `#   ${piece.module} (${piece.kind}): ${piece.from}`),
    ];
  }
  return [
    `# ${member.name}: waits for the others, then reports work that contradicts a decision or`,
    "# duplicates other work.",
  ];
}

/** The scenario file for a task's team, commented. */
export function teamToYaml(team: TaskTeam): string {
  const { scenario, understood } = team;
  const out: string[] = [
    "# A scenario written by `shared-ctx scenario init` from your task. Shape it to your own",
    "# situation (who decides what, who works on which module, how long things take), then:",
    "#   shared-ctx scenario check <this file>      validate it and see what each mode will face",
    "#   shared-ctx demo --scenario <this file>     message passing and shared context side by side",
    "#   shared-ctx run --scenario <this file> --mode naive|broadcast|statewave",
    "#",
    "# What the rules understood of the task:",
    ...understood.decisions.map(
      (decision) => `#   decides: ${decision.value} ${decision.target}  <- '${decision.clause}'`,
    ),
    ...understood.work.map(
      (work) => `#   work:    ${work.module} (${work.kind})  <- '${work.clause}'`,
    ),
    ...understood.unparsed.map((clause) => `#   not understood: '${clause}'`),
    "",
    line(0, "name", scenario.name, "the id on the command line (kebab-case)"),
    line(0, "title", text(scenario.title), "shown in the demo's picker"),
    line(0, "task", text(scenario.task), "the whole task, as written"),
    "# The team, in display order; the first planner is the lead (it settles escalations).",
    "agents:",
  ];
  scenario.agents.forEach((agent, index) => {
    const member = team.members[index];
    if (member !== undefined) out.push(...memberComments(member).map((comment) => `  ${comment}`));
    out.push(line(2, "- id", agent.id, "unique; the source of everything it writes"));
    out.push(line(4, "role", agent.role, "planner decides, coder builds, reviewer reviews"));
    out.push(line(4, "name", text(agent.name)));
    out.push(line(4, "color", agent.color));
    if (agent.thinkMs !== undefined) {
      out.push(line(4, "thinkMs", String(agent.thinkMs), "how long it deliberates (scenario ms)"));
    }
    if (agent.slice !== undefined) {
      out.push(line(4, "slice", text(agent.slice), "its part of the task (what it reads)"));
    }
    if (agent.modules !== undefined) {
      out.push(line(4, "modules", names(agent.modules), "what it works on, in order"));
    }
  });
  const { timings, costs } = scenario;
  out.push(
    line(
      0,
      "inventory",
      names(scenario.inventory ?? []),
      "the project's existing modules (the task names them)",
    ),
    "# How long each step takes, in scenario milliseconds (--speed only paces the playback).",
    "timings:",
    line(2, "thinkMs", String(timings.thinkMs), "one thinking step (reading, planning)"),
    line(2, "moduleMs", String(timings.moduleMs), "building one new module"),
    line(2, "reviewMs", String(timings.reviewMs), "the Reviewer's final review"),
    line(2, "jitterMs", String(timings.jitterMs ?? 0), "random extra per step, fixed by --seed"),
  );
  const byName = Object.entries(timings.moduleMsByName ?? {});
  if (byName.length > 0) {
    out.push("  # Work on an existing module (callers to port, data to move) takes longer.");
    out.push("  moduleMsByName:");
    for (const [module, ms] of byName) out.push(`    ${module}: ${ms}`);
  }
  out.push(
    "# What each step costs in tokens (the summary's totals and waste).",
    "costs:",
    line(2, "tokensPerThink", String(costs.tokensPerThink)),
    line(2, "tokensPerModule", String(costs.tokensPerModule), "spent evenly over a build"),
    line(2, "tokensPerReview", String(costs.tokensPerReview)),
    "",
  );
  return out.join("\n");
}
