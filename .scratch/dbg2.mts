import { loadScenario } from "/work/h-exp/src/scenario/load-scenario.js";
import { EmbeddedStore } from "/work/h-exp/src/context/embedded/embedded-store.js";
import { createVirtualClock } from "/work/h-exp/src/scenario/clock.js";
import { startRun } from "/work/h-exp/src/scenario/scenario-runner.js";
const scenario = await loadScenario(process.argv[2].includes("/") ? process.argv[2] : process.argv[2]);
const h = startRun({ scenario, mode: process.argv[3] as never, store: new EmbeddedStore({ path: ":memory:" }), seed: Number(process.argv[4] ?? 1), clock: createVirtualClock() });
const ev: any[] = []; h.subscribe((e) => ev.push(e)); await h.done;
for (const e of ev) if (e.type !== "message-send") console.log(e.at, e.type, e.agentId ?? "", e.module ?? e.task ?? "", e.text ?? e.reason ?? e.content ?? "", e.decisionIds ? JSON.stringify(e.decisionIds) : "", e.disputes?.length ? JSON.stringify(e.disputes):"");
