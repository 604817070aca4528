import type { ContextStore } from "../context/context-store.js";
import { createVirtualClock } from "../scenario/clock.js";
import { historyScenario } from "../scenario/history-size.js";
import {
  type CollisionCause,
  type Mechanism,
  mechanisms,
  type RefereeVerdict,
  type RunMode,
  type RunSummary,
  runModes,
} from "../scenario/scenario-events.js";
import { startRun } from "../scenario/scenario-runner.js";
import type { Scenario } from "../scenario/scenario-schema.js";
import { withTeamSize } from "../scenario/team-size.js";

/** One scenario in one mode over every seed, as the referee judged each run. */
export interface ScenarioBenchRow {
  scenario: string;
  mode: RunMode;
  runs: number;
  /** Runs the referee judged each way, of `runs`. */
  verdicts: Record<RefereeVerdict, number>;
  /** Runs that collided (the referee's `collision`), of `runs`. */
  collisions: number;
  /** Wasted tokens per run: built in vain plus cut-short builds. */
  wastedMean: number;
  wastedMax: number;
  /** Planned modules the final decisions keep that were never built, summed over runs. */
  dropped: number;
  /** Work started on a fact already superseded, summed over runs. */
  staleActions: number;
  /** Messages sent per run (message modes). */
  messagesMean: number;
  /** Tokens an agent had to read per run, summed over its reads (mean over runs). */
  readMean: number;
  /** The largest single read seen in any run. */
  readLargest: number;
  /** Tokens delivered into the agents' contexts per run, under the one cost rule (mean). */
  deliveredMean: number;
  /** Messages delivered per run, under the one cost rule (mean). */
  messagesDeliveredMean: number;
  /** Store requests per run, under the one cost rule (mean). */
  storeRequestsMean: number;
  /** Avoided conflicts by mechanism, summed over runs. */
  avoidedBy: Partial<Record<Mechanism, number>>;
  /** Collisions by cause, summed over runs. */
  collisionCauses: Partial<Record<CollisionCause, number>>;
  /** Disputes still open at the end, summed over runs. */
  openDisputes: number;
}

/** How shared context fares against one baseline on one scenario. */
export interface ScenarioBenchVerdict {
  scenario: string;
  /** The baseline compared with (`group-chat`, the strongest message passing, when it ran). */
  against: RunMode;
  /**
   * `win` (fewer collisions or less waste), `tie`, `loss`, or `unresolved` (a dispute still open
   * in shared context's runs: never a win).
   */
  outcome: "win" | "tie" | "loss" | "unresolved";
  /** The mechanisms that made the difference (a win or a loss), or those both relied on (a tie). */
  mechanisms: Mechanism[];
  /** Mean tokens read per run: shared context, then the baseline. */
  read: [number, number];
  /** Mean tokens delivered per run under the one cost rule: shared context, then the baseline. */
  delivered: [number, number];
}

/** Options of {@link runScenarioBench}. */
export interface ScenarioBenchOptions {
  scenarios: readonly Scenario[];
  /** Seeds 1..seeds. */
  seeds: number;
  /** @default every mode */
  modes?: readonly RunMode[];
  /** A fresh store per run. */
  openStore(): ContextStore;
  onProgress?(message: string): void;
}

function addTo<Key extends string>(into: Partial<Record<Key, number>>, key: Key, count = 1) {
  into[key] = (into[key] ?? 0) + count;
}

/** A row of no runs yet: each run's figures are added to it (a test's rows start from it too). */
export function emptyRow(scenario: string, mode: RunMode): ScenarioBenchRow {
  return {
    scenario,
    mode,
    runs: 0,
    verdicts: { clean: 0, collision: 0, unresolved: 0 },
    collisions: 0,
    wastedMean: 0,
    wastedMax: 0,
    dropped: 0,
    staleActions: 0,
    messagesMean: 0,
    readMean: 0,
    readLargest: 0,
    deliveredMean: 0,
    messagesDeliveredMean: 0,
    storeRequestsMean: 0,
    avoidedBy: {},
    collisionCauses: {},
    openDisputes: 0,
  };
}

/** Adds one run's summary to its row (means are sums until {@link finishRow}). */
function addRun(row: ScenarioBenchRow, summary: RunSummary): void {
  row.runs += 1;
  const referee = summary.referee;
  row.verdicts[referee?.verdict ?? (summary.collision ? "collision" : "clean")] += 1;
  if (summary.collision) row.collisions += 1;
  if (summary.collisionCause) addTo(row.collisionCauses, summary.collisionCause);
  for (const mechanism of mechanisms) {
    const count = summary.avoidedBy[mechanism] ?? 0;
    if (count > 0) addTo(row.avoidedBy, mechanism, count);
  }
  row.wastedMean += summary.wasted.tokens;
  row.wastedMax = Math.max(row.wastedMax, summary.wasted.tokens);
  row.dropped += referee?.droppedModules.length ?? 0;
  row.staleActions += referee?.staleActions.length ?? 0;
  row.messagesMean += summary.messages ?? 0;
  row.readMean += summary.read.tokens;
  row.readLargest = Math.max(row.readLargest, summary.read.largest);
  row.deliveredMean += summary.cost?.deliveredTokens ?? 0;
  row.messagesDeliveredMean += summary.cost?.messagesDelivered ?? 0;
  row.storeRequestsMean += summary.cost?.storeRequests ?? 0;
  row.openDisputes += summary.openDisputes;
}

function finishRow(row: ScenarioBenchRow): ScenarioBenchRow {
  const runs = Math.max(1, row.runs);
  row.wastedMean = Math.round(row.wastedMean / runs);
  row.messagesMean = Math.round(row.messagesMean / runs);
  row.readMean = Math.round(row.readMean / runs);
  row.deliveredMean = Math.round(row.deliveredMean / runs);
  row.messagesDeliveredMean = Math.round(row.messagesDeliveredMean / runs);
  row.storeRequestsMean = Math.round(row.storeRequestsMean / runs);
  return row;
}

async function benchRow(
  scenario: Scenario,
  mode: RunMode,
  options: Pick<ScenarioBenchOptions, "seeds" | "openStore">,
): Promise<ScenarioBenchRow> {
  const row = emptyRow(scenario.name, mode);
  for (let seed = 1; seed <= options.seeds; seed += 1) {
    const store = options.openStore();
    try {
      const run = startRun({ scenario, mode, store, seed, clock: createVirtualClock() });
      addRun(row, await run.done);
    } finally {
      await store.close();
    }
  }
  return finishRow(row);
}

/**
 * Every scenario in every mode over seeds 1..N, on the scenario clock (as fast as the machine
 * allows: the outcome does not depend on it), each run judged by the referee. Pure measurement:
 * no outcome is asserted here.
 */
export async function runScenarioBench(
  options: ScenarioBenchOptions,
): Promise<{ rows: ScenarioBenchRow[]; verdicts: ScenarioBenchVerdict[] }> {
  const rows: ScenarioBenchRow[] = [];
  for (const scenario of options.scenarios) {
    for (const mode of options.modes ?? runModes) {
      const row = await benchRow(scenario, mode, options);
      rows.push(row);
      options.onProgress?.(
        `${scenario.name} ${mode}: ${row.collisions}/${row.runs} collided, waste mean ${row.wastedMean}`,
      );
    }
  }
  return { rows, verdicts: verdictsOf(rows) };
}

/** Options of {@link runTeamSizeSweep}. */
export interface TeamSizeSweepOptions extends Omit<ScenarioBenchOptions, "scenarios"> {
  scenario: Scenario;
  sizes: readonly number[];
}

/** One scenario at each team size (`withTeamSize`), every mode: how messages and reads grow. */
export async function runTeamSizeSweep(
  options: TeamSizeSweepOptions,
): Promise<Array<ScenarioBenchRow & { teamSize: number }>> {
  const rows: Array<ScenarioBenchRow & { teamSize: number }> = [];
  for (const size of options.sizes) {
    const scenario = withTeamSize(options.scenario, size);
    for (const mode of options.modes ?? runModes) {
      rows.push({ ...(await benchRow(scenario, mode, options)), teamSize: size });
      options.onProgress?.(`${scenario.name} ${mode}`);
    }
  }
  return rows;
}

/** Options of {@link runHistorySweep}. */
export interface HistorySweepOptions extends Omit<ScenarioBenchOptions, "scenarios"> {
  /** Decisions made before the Coder joins, one sweep point each. */
  histories: readonly number[];
}

/** The history sweep (`historyScenario`), every mode: what a joiner is delivered as it grows. */
export async function runHistorySweep(
  options: HistorySweepOptions,
): Promise<Array<ScenarioBenchRow & { history: number }>> {
  const rows: Array<ScenarioBenchRow & { history: number }> = [];
  for (const history of options.histories) {
    const scenario = historyScenario(history);
    for (const mode of options.modes ?? runModes) {
      rows.push({ ...(await benchRow(scenario, mode, options)), history });
      options.onProgress?.(`${scenario.name} ${mode}`);
    }
  }
  return rows;
}

/** The mechanisms with a count in `row`. */
function usedBy(row: ScenarioBenchRow): Mechanism[] {
  return mechanisms.filter((mechanism) => (row.avoidedBy[mechanism] ?? 0) > 0);
}

/** Shared context against one baseline on one scenario, judged on the referee's figures. */
function compareRows(shared: ScenarioBenchRow, baseline: ScenarioBenchRow): ScenarioBenchVerdict {
  const used = usedBy(shared);
  const base = {
    scenario: shared.scenario,
    against: baseline.mode,
    read: [shared.readMean, baseline.readMean] as [number, number],
    delivered: [shared.deliveredMean, baseline.deliveredMean] as [number, number],
  };
  if (shared.verdicts.unresolved > 0) return { ...base, outcome: "unresolved", mechanisms: used };
  const better =
    shared.collisions < baseline.collisions ||
    (shared.collisions === baseline.collisions && shared.wastedMean < baseline.wastedMean);
  const worse =
    shared.collisions > baseline.collisions ||
    (shared.collisions === baseline.collisions && shared.wastedMean > baseline.wastedMean);
  // A win names what the baseline lacked: the causes of its collisions, else what shared context used.
  const lacked = mechanisms.filter(
    (mechanism) => (baseline.collisionCauses[mechanism as CollisionCause] ?? 0) > 0,
  );
  if (better) return { ...base, outcome: "win", mechanisms: lacked.length > 0 ? lacked : used };
  if (worse) return { ...base, outcome: "loss", mechanisms: usedBy(baseline) };
  return { ...base, outcome: "tie", mechanisms: used };
}

/**
 * Shared context against the strongest baseline that ran (`group-chat`, else `broadcast`), and
 * against `broadcast` too when both ran, scenario by scenario. Reading is reported beside the
 * outcome, never counted as a win of its own.
 */
export function verdictsOf(rows: readonly ScenarioBenchRow[]): ScenarioBenchVerdict[] {
  const names = [...new Set(rows.map((row) => row.scenario))];
  const verdicts: ScenarioBenchVerdict[] = [];
  for (const scenario of names) {
    const of = (mode: RunMode) =>
      rows.find((row) => row.scenario === scenario && row.mode === mode);
    const shared = of("statewave");
    if (shared === undefined) continue;
    for (const against of ["group-chat", "broadcast"] as const) {
      const baseline = of(against);
      if (baseline !== undefined) verdicts.push(compareRows(shared, baseline));
    }
  }
  return verdicts;
}
