import { parseScenario } from "../load-scenario.js";
import type { Scenario } from "../scenario-schema.js";
import { buildTaskTeam, type TaskTeam } from "./build-task-team.js";
import type { ScenarioFaces } from "./what-modes-face.js";

/** A task's team and its validated scenario, as `run --task` and `demo --task` play it. */
export function teamScenarioFromTask(task: string): { team: TaskTeam; scenario: Scenario } {
  const team = buildTaskTeam(task);
  return { team, scenario: parseScenario(team.scenario, "--task") };
}

/**
 * The team for people, before a run: who does what, and where each piece of each slice came
 * from (the clause of the task, or an existing module it names).
 */
export function describeTeam(team: TaskTeam): string[] {
  const lines = ["Team on your task (shared-ctx scenario init writes it as a file you can edit):"];
  for (const member of team.members) {
    if (member.role === "planner") {
      const decided =
        member.decisions.length > 0
          ? member.decisions.map((decision) => `${decision.value} ${decision.target}`).join(", ")
          : "nothing (no clause of the task decides anything)";
      lines.push(`  ${member.name}: decides ${decided}`);
      for (const clause of member.clauses) lines.push(`    from the task: '${clause}'`);
    } else if (member.role === "coder") {
      lines.push(
        `  ${member.name}: ${member.pieces.map((piece) => piece.module).join(", ") || "(no module)"}`,
      );
      for (const piece of member.pieces) lines.push(`    ${piece.module}: ${piece.from}`);
    } else {
      lines.push(`  ${member.name}: reviews the finished work at the end`);
    }
  }
  if (team.understood.unparsed.length > 0) {
    lines.push(
      `  Not understood (left out): ${team.understood.unparsed.map((clause) => `'${clause}'`).join(", ")}`,
    );
  }
  return lines;
}

/** What each mode will face, for people: one line per place the modes can differ. */
export function describeFaces(faces: ScenarioFaces): string[] {
  if (faces.nothing) {
    return [
      `Nothing here to coordinate: every mode does the same work (${faces.why ?? "the slices do not meet"}).`,
      ...faces.faces.map((face) => `  ${face.text}`),
    ];
  }
  return ["What each mode will face:", ...faces.faces.map((face) => `  ${face.text}`)];
}
