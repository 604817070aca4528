import type { ContextStore } from "../context/context-store.js";
import { createVirtualClock } from "../scenario/clock.js";
import {
  type CollisionCause,
  type Mechanism,
  mechanisms,
  type RunMode,
  runModes,
} from "../scenario/scenario-events.js";
import { startRun } from "../scenario/scenario-runner.js";
import type { Scenario } from "../scenario/scenario-schema.js";

/** One scenario in one mode over every seed. */
export interface ScenarioBenchRow {
  scenario: string;
  mode: RunMode;
  runs: number;
  /** Runs that collided, of `runs`. */
  collisions: number;
  /** Wasted tokens per run: built in vain plus cancelled builds. */
  wastedMean: number;
  wastedMax: number;
  /** Tokens an agent had to read per run, summed over its reads (mean over runs). */
  readMean: number;
  /** The largest single read seen in any run. */
  readLargest: number;
  /** Avoided conflicts by mechanism, summed over runs. */
  avoidedBy: Partial<Record<Mechanism, number>>;
  /** Collisions by cause, summed over runs. */
  collisionCauses: Partial<Record<CollisionCause, number>>;
  openDisputes: number;
}

/** How shared context fares against the strongest message passing on one scenario. */
export interface ScenarioBenchVerdict {
  scenario: string;
  /** `win` (fewer collisions or less waste), `tie` (the same), `loss` (more). */
  outcome: "win" | "tie" | "loss";
  /** The mechanisms that made the difference (for a win), or what both relied on (a tie). */
  mechanisms: Mechanism[];
}

/** Options of {@link runScenarioBench}. */
export interface ScenarioBenchOptions {
  scenarios: readonly Scenario[];
  /** Seeds 1..seeds. */
  seeds: number;
  /** A fresh store per run. */
  openStore(): ContextStore;
  onProgress?(message: string): void;
}

function addTo<Key extends string>(into: Partial<Record<Key, number>>, key: Key, count = 1) {
  into[key] = (into[key] ?? 0) + count;
}

/**
 * Every scenario in every mode over seeds 1..N, on the scenario clock (as fast as the machine
 * allows: the outcome does not depend on it). Pure measurement: no outcome is asserted here.
 */
export async function runScenarioBench(
  options: ScenarioBenchOptions,
): Promise<{ rows: ScenarioBenchRow[]; verdicts: ScenarioBenchVerdict[] }> {
  const rows: ScenarioBenchRow[] = [];
  for (const scenario of options.scenarios) {
    for (const mode of runModes) {
      const row: ScenarioBenchRow = {
        scenario: scenario.name,
        mode,
        runs: 0,
        collisions: 0,
        wastedMean: 0,
        wastedMax: 0,
        readMean: 0,
        readLargest: 0,
        avoidedBy: {},
        collisionCauses: {},
        openDisputes: 0,
      };
      let wastedTotal = 0;
      let readTotal = 0;
      for (let seed = 1; seed <= options.seeds; seed += 1) {
        const store = options.openStore();
        try {
          const summary = await startRun({
            scenario,
            mode,
            store,
            seed,
            clock: createVirtualClock(),
          }).done;
          row.runs += 1;
          if (summary.collision) row.collisions += 1;
          if (summary.collisionCause) addTo(row.collisionCauses, summary.collisionCause);
          for (const mechanism of mechanisms) {
            const count = summary.avoidedBy[mechanism] ?? 0;
            if (count > 0) addTo(row.avoidedBy, mechanism, count);
          }
          wastedTotal += summary.wasted.tokens;
          row.wastedMax = Math.max(row.wastedMax, summary.wasted.tokens);
          readTotal += summary.read.tokens;
          row.readLargest = Math.max(row.readLargest, summary.read.largest);
          row.openDisputes += summary.openDisputes;
        } finally {
          await store.close();
        }
      }
      row.wastedMean = Math.round(wastedTotal / Math.max(1, row.runs));
      row.readMean = Math.round(readTotal / Math.max(1, row.runs));
      rows.push(row);
      options.onProgress?.(
        `${scenario.name} ${mode}: ${row.collisions}/${row.runs} collided, waste mean ${row.wastedMean}`,
      );
    }
  }
  return { rows, verdicts: verdictsOf(rows) };
}

/** Shared context against broadcast, scenario by scenario. */
export function verdictsOf(rows: readonly ScenarioBenchRow[]): ScenarioBenchVerdict[] {
  const names = [...new Set(rows.map((row) => row.scenario))];
  return names.map((scenario) => {
    const broadcast = rows.find((row) => row.scenario === scenario && row.mode === "broadcast");
    const shared = rows.find((row) => row.scenario === scenario && row.mode === "statewave");
    if (broadcast === undefined || shared === undefined) {
      return { scenario, outcome: "tie", mechanisms: [] };
    }
    const used = mechanisms.filter((mechanism) => (shared.avoidedBy[mechanism] ?? 0) > 0);
    const better =
      shared.collisions < broadcast.collisions ||
      (shared.collisions === broadcast.collisions && shared.wastedMean < broadcast.wastedMean);
    const worse =
      shared.collisions > broadcast.collisions ||
      (shared.collisions === broadcast.collisions && shared.wastedMean > broadcast.wastedMean);
    // Reading less is a win of its own when the team is large (bounded context).
    const readsLess = shared.readLargest < broadcast.readLargest / 1.5;
    if (better) return { scenario, outcome: "win", mechanisms: used };
    if (worse) return { scenario, outcome: "loss", mechanisms: used };
    if (readsLess) return { scenario, outcome: "win", mechanisms: ["bounded context"] };
    return { scenario, outcome: "tie", mechanisms: used };
  });
}

function formatCounts(counts: Partial<Record<string, number>>): string {
  const entries = Object.entries(counts).filter(([, count]) => (count ?? 0) > 0);
  return entries.length === 0 ? "-" : entries.map(([key, count]) => `${key} ${count}`).join(", ");
}

/** The table README quotes: one row per scenario and mode, then the verdict per scenario. */
export function formatScenarioBench(
  result: { rows: readonly ScenarioBenchRow[]; verdicts: readonly ScenarioBenchVerdict[] },
  seeds: number,
): string {
  const header = [
    "scenario",
    "mode",
    "collided",
    "wasted mean",
    "wasted max",
    "read mean",
    "largest read",
    "avoided by",
    "collision cause",
  ];
  const lines = result.rows.map((row) => [
    row.scenario,
    row.mode,
    `${row.collisions}/${row.runs}`,
    String(row.wastedMean),
    String(row.wastedMax),
    String(row.readMean),
    String(row.readLargest),
    formatCounts(row.avoidedBy),
    formatCounts(row.collisionCauses),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] ?? "").length)),
  );
  const render = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  const verdicts = result.verdicts.map((verdict) => {
    const why = verdict.mechanisms.length > 0 ? ` (${verdict.mechanisms.join(", ")})` : "";
    const word =
      verdict.outcome === "win"
        ? "shared context wins"
        : verdict.outcome === "tie"
          ? "tie"
          : "broadcast wins";
    return `  ${verdict.scenario.padEnd(22)} ${word}${why}`;
  });
  return [
    `Scenarios × modes × ${seeds} seeds (scenario clock; tokens are scenario tokens, ~4 characters each)`,
    "",
    render(header),
    ...lines.map(render),
    "",
    "Shared context against broadcast (the strongest message passing):",
    ...verdicts,
    "",
  ].join("\n");
}
