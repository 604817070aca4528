import { describe, expect, it } from "vitest";
import type { ContextStore } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { createVirtualClock } from "../../../src/scenario/clock.js";
import { listScenarios, loadScenario } from "../../../src/scenario/load-scenario.js";
import type { ScenarioEvent } from "../../../src/scenario/scenario-events.js";
import { startRun } from "../../../src/scenario/scenario-runner.js";
import { createStatewaveEmulator } from "../../../src/server/compat/statewave-v0-7-1.js";
import { serveFetch } from "../../support/serve-fetch.js";

/** Counter ids, so both runs name everything alike. */
function sequentialIds(): () => string {
  let next = 0;
  return () => (next++).toString(36).padStart(8, "0");
}

async function run(name: string, store: ContextStore) {
  const handle = startRun({
    clock: createVirtualClock(),
    seed: 1,
    generateId: sequentialIds(),
    scenario: await loadScenario(name),
    mode: "statewave",
    store,
  });
  const events: ScenarioEvent[] = [];
  handle.subscribe((event) => events.push(event));
  const summary = await handle.done;
  await store.close();
  return { summary, events };
}

/**
 * What may differ between stores: real (wall) time spent waiting on it, and the size of the
 * context it assembled (each `context-read`'s `tokens` and `memoryIds`, the summary's `read`: the
 * server ranks and renders the bundle its own way, and a real Statewave's holds more summaries).
 * Ids are the stores' own. So may the cost under the one rule (`cost`): the tokens of the bundles
 * it rendered, and the requests a backend makes for one call (a Statewave server pages and
 * resolves what the embedded store answers at once).
 * Outcome, events, their order and scenario times may not differ.
 */
const storeChosen = new Set(["storeMs", "read", "tokens", "memoryIds", "cost"]);

function comparable(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, inner) => (storeChosen.has(key) ? undefined : inner)).replace(
      /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g,
      "<id>",
    ),
  );
}

describe("every shipped scenario over HTTP: on serve, and on a Statewave v0.7.1 server (emulated)", async () => {
  // big-team (32 agents, a replica each) is a scale scenario: over HTTP one run takes minutes on
  // this machine; test/scenario/scenario-runner.test.ts holds it to its outcome on the embedded store.
  const overHttp = new Set(["big-team"]);
  const names = (await listScenarios())
    .map((scenario) => scenario.name)
    .filter((name) => !overHttp.has(name));

  it.each(names)(
    "%s on shared-ctx serve: the same outcome, events and scenario times",
    async (name) => {
      const embedded = await run(name, new EmbeddedStore({ path: ":memory:" }));
      const served = new EmbeddedStore({ path: ":memory:" });
      const fetch = serveFetch({ store: served });
      const remote = await run(name, new StatewaveStore({ fetch, pollIntervalMs: 5 }));
      await served.close();
      expect(comparable(remote.events)).toEqual(comparable(embedded.events));
      expect(comparable(remote.summary)).toEqual(comparable(embedded.summary));
    },
  );

  const onEmulator = async (name: string) => {
    const embedded = await run(name, new EmbeddedStore({ path: ":memory:" }));
    const emulator = createStatewaveEmulator();
    const remote = await run(
      name,
      new StatewaveStore({ fetch: emulator.clientFetch, pollIntervalMs: 5 }),
    );
    return { embedded, remote };
  };

  // Once a known gap, tested on its own below: on v0.7.1 the lead's ruling did not supersede the
  // Planners' decisions client-side when a read searched by their words (the search returned the
  // decisions without the ruling, so the rule never saw it); StatewaveStore now resolves a
  // search's hits beside the subject's newest memories.
  const knownGaps = new Set(["disagreeing-planners"]);

  // What a read lists can differ on v0.7.1: it has no exact read by target (docs/store.md, "over a
  // real Statewave"), so the store falls back to its windows (the oldest 100 memories and the
  // newest 100 active), which order and hold a long subject's decisions differently. The outcome
  // may not differ; the reads' decision lists in these two long subjects do.
  const readsDiffer = new Set(["long-history", "many-agents"]);

  it.each([...readsDiffer])(
    "%s: the same outcome as on the embedded store (v0.7.1 has no exact read by target)",
    async (name) => {
      const { embedded, remote } = await onEmulator(name);
      expect(comparable(remote.summary)).toEqual(comparable(embedded.summary));
    },
  );

  it.each(names.filter((name) => !knownGaps.has(name) && !readsDiffer.has(name)))(
    "%s: the same outcome, events and scenario times as on the embedded store",
    async (name) => {
      const { embedded, remote } = await onEmulator(name);
      expect(comparable(remote.summary)).toEqual(comparable(embedded.summary));
      expect(comparable(remote.events)).toEqual(comparable(embedded.events));
    },
  );

  it("disagreeing-planners: the same outcome as on the embedded store", async () => {
    const { embedded, remote } = await onEmulator("disagreeing-planners");
    expect(comparable(remote.summary)).toEqual(comparable(embedded.summary));
  });

  it("disagreeing-planners: the same events (the ruling supersedes both sides on v0.7.1 too)", async () => {
    const { embedded, remote } = await onEmulator("disagreeing-planners");
    expect(comparable(remote.events)).toEqual(comparable(embedded.events));
  });
});
