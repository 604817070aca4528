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

/** A growth sweep's point: its size (coders, or decisions before a joiner) and its row. */
export type GrowthRow = ScenarioBenchRow & { teamSize?: number; history?: number };

/** How wide the terminal chart's longest bar is, in characters (fits 80 columns). */
const chartWidth = 44;

/**
 * Delivered tokens a run as bars, one per size and mode, scaled to the largest: the same figure
 * `scripts/growth-figure.mjs` draws as an SVG from the bench's JSON.
 */
export function growthChart(rows: readonly GrowthRow[], sizeOf: (row: GrowthRow) => number) {
  const largest = Math.max(1, ...rows.map((row) => row.deliveredMean));
  const modeWidth = Math.max(...rows.map((row) => row.mode.length));
  const sizeWidth = Math.max(...rows.map((row) => String(sizeOf(row)).length));
  return rows.map((row) => {
    const length = Math.round((row.deliveredMean / largest) * chartWidth);
    const bar = "█".repeat(length) || (row.deliveredMean > 0 ? "▏" : "");
    return `  ${String(sizeOf(row)).padStart(sizeWidth)} ${row.mode.padEnd(modeWidth)} ${bar} ${row.deliveredMean.toLocaleString("en-US")}`;
  });
}

/**
 * A growth sweep (the team, or the history before a joiner): verdicts, then the cost under the
 * one rule per size and mode, then the chart of delivered tokens.
 */
function formatGrowth(
  rows: readonly GrowthRow[],
  sizeOf: (row: GrowthRow) => number,
  titles: { column: string; heading: string },
): string {
  const header = [
    titles.column,
    "mode",
    "clean/collision/unresolved",
    "delivered",
    "msgs",
    "store reqs",
    "largest read",
  ];
  const lines = rows.map((row) => [
    String(sizeOf(row)),
    row.mode,
    verdictCells(row),
    String(row.deliveredMean),
    String(row.messagesDeliveredMean),
    String(row.storeRequestsMean),
    String(row.readLargest),
  ]);
  return [
    titles.heading,
    "",
    ...renderTable(header, lines),
    "",
    "Tokens delivered a run (the one cost rule):",
    ...growthChart(rows, sizeOf),
    "",
  ].join("\n");
}

/** The team-size sweep: what each mode delivers as the team grows. */
export function formatTeamSizeSweep(
  rows: readonly (ScenarioBenchRow & { teamSize: number })[],
  seeds: number,
): string {
  const scenario = rows[0]?.scenario.replace(/-x\d+$/, "") ?? "?";
  return formatGrowth(rows, (row) => row.teamSize ?? 0, {
    column: "coders",
    heading: `Team-size sweep: ${scenario} with N coders × ${seeds} seeds (means a run, the one cost rule of docs/runner.md)`,
  });
}

/** The history sweep: what each mode delivers as the decisions before a joiner grow. */
export function formatHistorySweep(
  rows: readonly (ScenarioBenchRow & { history: number })[],
  seeds: number,
): string {
  return formatGrowth(rows, (row) => row.history ?? 0, {
    column: "decisions",
    heading: `History sweep: N decisions before a Coder joins × ${seeds} seeds (means a run, the one cost rule of docs/runner.md)`,
  });
}
