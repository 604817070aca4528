import { scenarioSchema } from "/work/h-exp/src/scenario/scenario-schema.js";
import { EmbeddedStore } from "/work/h-exp/src/context/embedded/embedded-store.js";
import { createVirtualClock } from "/work/h-exp/src/scenario/clock.js";
import { startRun } from "/work/h-exp/src/scenario/scenario-runner.js";
const decisions = Array.from({ length: 500 }, (_, i) => ({ target: `module-${i + 1}`, value: "deprecate", content: `Deprecate module-${i + 1}.` }));
const scenario = scenarioSchema.parse({ name: "x", title: "x", task: "Retire what the Planner says; build the rest.",
  agents: [ { id: "planner", role: "planner", name: "Planner", color: "cyan", slice: "Decide.", decisions },
  { id: "coder", role: "coder", name: "Coder", color: "magenta", slice: "Build.", modules: ["module-1","fresh-module"], startAtMs: 5000 },
  { id: "reviewer", role: "reviewer", name: "Reviewer", color: "yellow" } ],
  timings: { thinkMs: 1000, moduleMs: 2000, reviewMs: 500 }, costs: { tokensPerThink: 100, tokensPerModule: 1000, tokensPerReview: 100 } });
const mode = (process.argv[2] ?? "statewave") as never;
const h = startRun({ scenario, mode, store: new EmbeddedStore({ path: ":memory:" }), seed: 1, clock: createVirtualClock() });
const ev: any[] = []; h.subscribe((e) => ev.push(e)); await h.done;
for (const e of ev) if (e.type !== "decision-write" && e.type !== "message-send") console.log(e.at, e.type, e.agentId ?? "", e.module ?? e.task ?? e.text ?? "", e.decisionIds ? e.decisionIds.slice(0,3) : "", e.decisionsLeftOut ?? "");
