import { afterEach, vi } from "vitest";
import type { Brain, ReviewFinding } from "../../../src/agents/brain.js";
import { createOfflineBrain } from "../../../src/agents/offline-brain.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { createVirtualClock } from "../../../src/scenario/clock.js";
import { loadScenario } from "../../../src/scenario/load-scenario.js";
import {
  type RunHandle,
  type StartRunOptions,
  startRun,
} from "../../../src/scenario/scenario-runner.js";
import { sequentialIds } from "./run-scenario.js";

/**
 * In-memory stores for one test file's runs, each closed (and every spy restored) after each
 * test, and a run of the auth-jwt scenario on one of them.
 */
export function createRunnerFixtures() {
  const stores: EmbeddedStore[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const store of stores.splice(0)) await store.close();
  });
  function memoryStore(): EmbeddedStore {
    const store = new EmbeddedStore({ path: ":memory:" });
    stores.push(store);
    return store;
  }

  /** A run of the auth-jwt scenario on a fresh in-memory store, a virtual clock, seed 1 and
   * sequential ids, unless `options` says otherwise. */
  async function startAuthJwt(
    options: Partial<StartRunOptions> & Pick<StartRunOptions, "mode">,
  ): Promise<RunHandle> {
    return startRun({
      scenario: await loadScenario("auth-jwt"),
      seed: 1,
      generateId: sequentialIds(),
      ...options,
      store: options.store ?? memoryStore(),
      clock: options.clock ?? createVirtualClock(),
    });
  }

  return { memoryStore, startAuthJwt };
}

/**
 * The offline brain's answers from a stand-in for a model: each call reports `tokens` (as a
 * model's usage) and moves the fake real clock by `latencyMs` (as a model's answer takes time).
 */
export function modelBrain(options: {
  real: { now: number };
  latencyMs?: number;
  tokens?: number;
  reproducible?: boolean;
  fail?: Error;
  /** Findings the model adds to the review. */
  findings?: ReviewFinding[];
}): Brain & { calls(): number } {
  const offline = createOfflineBrain();
  let calls = 0;
  const answer = async <T>(work: () => Promise<T>, onUsage?: (tokens: number) => void) => {
    calls += 1;
    // The answer comes later, as a model's does: the real time passes while the agent waits.
    await new Promise((resolve) => setImmediate(resolve));
    options.real.now += options.latencyMs ?? 0;
    if (options.tokens !== undefined) onUsage?.(options.tokens);
    return work();
  };
  return {
    name: "stand-in/model",
    ...(options.reproducible !== undefined ? { reproducible: options.reproducible } : {}),
    decide: (input, call) => answer(() => offline.decide(input, call), call?.onUsage),
    planModules: (input, call) => answer(() => offline.planModules(input, call), call?.onUsage),
    chooseModuleStep: (input, call) => {
      if (options.fail) return Promise.reject(options.fail);
      return answer(() => offline.chooseModuleStep(input, call), call?.onUsage);
    },
    review: (input, call) =>
      answer(async () => {
        const report = await offline.review(input, call);
        return { ...report, findings: [...report.findings, ...(options.findings ?? [])] };
      }, call?.onUsage),
    calls: () => calls,
  };
}
