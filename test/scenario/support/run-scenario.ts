import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { createVirtualClock } from "../../../src/scenario/clock.js";
import type { RunMode, RunSummary, ScenarioEvent } from "../../../src/scenario/scenario-events.js";
import { type StartRunOptions, startRun } from "../../../src/scenario/scenario-runner.js";
import type { Scenario } from "../../../src/scenario/scenario-schema.js";

/** A counter-based id source: run ids are predictable in tests. */
export function sequentialIds(): () => string {
  let next = 0;
  return () => (next++).toString(36).padStart(8, "0");
}

/** Runs a scenario to the end on a virtual clock and an in-memory store. */
export async function runToEnd(
  scenario: Scenario,
  mode: RunMode,
  options: Partial<StartRunOptions> & { store?: EmbeddedStore } = {},
): Promise<{ summary: RunSummary; events: ScenarioEvent[]; store: EmbeddedStore; runId: string }> {
  const store = options.store ?? new EmbeddedStore({ path: ":memory:" });
  const handle = startRun({
    clock: createVirtualClock(),
    seed: 1,
    generateId: sequentialIds(),
    ...options,
    scenario,
    mode,
    store,
  });
  const events: ScenarioEvent[] = [];
  handle.subscribe((event) => events.push(event));
  const summary = await handle.done;
  return { summary, events, store, runId: handle.runId };
}

/** The modules whose build was cut short. */
export function cancelledModules(events: readonly ScenarioEvent[]): string[] {
  return events.flatMap((event) => (event.type === "module-cancel" ? [event.module] : [])).sort();
}
