import { EmbeddedStore } from "/work/h-exp/src/context/embedded/embedded-store.js";
import { createVirtualClock } from "/work/h-exp/src/scenario/clock.js";
import { listScenarios, loadScenario } from "/work/h-exp/src/scenario/load-scenario.js";
import { startRun } from "/work/h-exp/src/scenario/scenario-runner.js";
const modes = (process.argv[3] ?? "naive,broadcast,statewave").split(",");
const only = process.argv[2];
for (const { name } of await listScenarios()) {
  if (only && only !== "all" && !only.split(",").includes(name)) continue;
  const scenario = await loadScenario(name);
  for (const mode of modes) {
    const store = new EmbeddedStore({ path: ":memory:" });
    const s = await startRun({ scenario, mode: mode as never, store, seed: 42, clock: createVirtualClock() }).done;
    await store.close();
    const r = s.referee!;
    console.log(name.padEnd(22), mode.padEnd(10), r.verdict.padEnd(10), "wasted", JSON.stringify(r.wastedModules), "dropped", JSON.stringify(r.droppedModules), "disputes", r.openDisputes.map(d=>d.target).join(","), "stale", r.staleActions.map(a=>`${a.agentId}:${a.action}:${a.module}`).join(","), "avoided", JSON.stringify(s.avoidedBy), "cause", s.collisionCause, "read", s.read.tokens, s.read.largest, "msgs", s.messages);
  }
}
