import type { ScenarioBenchRow, ScenarioBenchVerdict } from "./scenarios-bench.js";

function formatCounts(counts: Partial<Record<string, number>>): string {
  const entries = Object.entries(counts).filter(([, count]) => (count ?? 0) > 0);
  return entries.length === 0 ? "-" : entries.map(([key, count]) => `${key} ${count}`).join(", ");
}

/** Cells padded to their column's widest, two spaces apart. */
function renderTable(header: readonly string[], lines: readonly (readonly string[])[]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] ?? "").length)),
  );
  const render = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return [render(header), ...lines.map(render)];
}

const verdictCells = (row: ScenarioBenchRow) =>
  `${row.verdicts.clean}/${row.verdicts.collision}/${row.verdicts.unresolved}`;

/** "tie (mid-build invalidation); read 188 vs 13 tokens a run". */
function describeVerdict(verdict: ScenarioBenchVerdict): string {
  const why = verdict.mechanisms.length > 0 ? ` (${verdict.mechanisms.join(", ")})` : "";
  const word = {
    win: "shared context wins",
    tie: "tie",
    loss: `${verdict.against} wins`,
    unresolved: "unresolved: a dispute stays open in shared context's runs, no win",
  }[verdict.outcome];
  const [shared, baseline] = verdict.delivered;
  const reads =
    shared === baseline
      ? "the same tokens delivered"
      : `delivered ${shared} vs ${baseline} tokens a run (${shared < baseline ? "shared context" : verdict.against} delivers less)`;
  return `  ${verdict.scenario.padEnd(22)} vs ${verdict.against.padEnd(10)} ${word}${why}; ${reads}`;
}

/** The table README quotes: one row per scenario and mode, then the verdicts per scenario. */
export function formatScenarioBench(
  result: { rows: readonly ScenarioBenchRow[]; verdicts: readonly ScenarioBenchVerdict[] },
  seeds: number,
): string {
  const header = [
    "scenario",
    "mode",
    "clean/collision/unresolved",
    "wasted mean",
    "dropped",
    "stale",
    "delivered",
    "msgs",
    "store reqs",
    "largest read",
    "avoided by",
    "collision cause",
  ];
  const lines = result.rows.map((row) => [
    row.scenario,
    row.mode,
    verdictCells(row),
    String(row.wastedMean),
    String(row.dropped),
    String(row.staleActions),
    String(row.deliveredMean),
    String(row.messagesDeliveredMean),
    String(row.storeRequestsMean),
    String(row.readLargest),
    formatCounts(row.avoidedBy),
    formatCounts(row.collisionCauses),
  ]);
  return [
    `Scenarios × modes × ${seeds} seeds, judged by the referee (scenario clock; tokens ~4 characters each; cost under the one rule of docs/runner.md: tokens delivered into agents' contexts, messages delivered, store requests, means a run)`,
    "",
    ...renderTable(header, lines),
    "",
    "Shared context against group-chat (the strongest message passing) and broadcast:",
    ...result.verdicts.map(describeVerdict),
    "",
  ].join("\n");
}

/** The team-size sweep: how messages and reads grow with the team, mode by mode. */
export function formatTeamSizeSweep(
  rows: readonly (ScenarioBenchRow & { teamSize: number })[],
  seeds: number,
): string {
  const header = [
    "coders",
    "mode",
    "clean/collision/unresolved",
    "messages",
    "read mean",
    "largest read",
  ];
  const lines = rows.map((row) => [
    String(row.teamSize),
    row.mode,
    verdictCells(row),
    String(row.messagesMean),
    String(row.readMean),
    String(row.readLargest),
  ]);
  const scenario = rows[0]?.scenario.replace(/-x\d+$/, "") ?? "?";
  return [
    `Team-size sweep: ${scenario} with N coders × ${seeds} seeds (messages and reads are means a run)`,
    "",
    ...renderTable(header, lines),
    "",
  ].join("\n");
}
