import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import {
  AgentCrash,
  type AgentRuntime,
  type RunAblation,
  type UnstampedEvent,
} from "../agents/agent-runtime.js";
import type { Brain } from "../agents/brain.js";
import { runCoder } from "../agents/coder-agent.js";
import { decomposeTask } from "../agents/decompose-task.js";
import { createOfflineBrain } from "../agents/offline-brain.js";
import { runPlanner } from "../agents/planner-agent.js";
import { runReviewer } from "../agents/reviewer-agent.js";
import type { ContextStore } from "../context/context-store.js";
import { collisionCauseOf } from "./attribute-collision.js";
import { type Clock, createSeededRandom, createVirtualClock } from "./clock.js";
import { openCoordination } from "./open-coordination.js";
import type { PlaybackGroup } from "./playback-group.js";
import { runIdPrefix, toRunEventEpisode, toRunStopEpisode } from "./run-record.js";
import type { AgentInfo, RunMode, RunSummary, ScenarioEvent } from "./scenario-events.js";
import type { AgentSpec, Scenario, ScenarioStep } from "./scenario-schema.js";
import { summarizeRun } from "./summarize-run.js";

export type { RunAblation } from "../agents/agent-runtime.js";

/** Options of {@link startRun}. */
export interface StartRunOptions {
  scenario: Scenario;
  mode: RunMode;
  /** Where the run's events (and, in statewave mode, the agents' shared context) are kept. */
  store: ContextStore;
  /** @default the offline deterministic brain */
  brain?: Brain;
  /**
   * How fast the run plays for people watching: 1 = the scenario's timings in real time, 10 = ten
   * times faster. It paces the scenario clock and changes nothing else: the same seed gives the
   * same events at every speed. Ignored when `clock` is given. @default as fast as possible
   */
  speed?: number;
  /** Fixes the timing jitter. @default a random seed */
  seed?: number;
  /** @default a virtual scenario clock, paced at `speed` */
  clock?: Clock;
  /**
   * Plays in step with the group's other runs (with `speed`): the demo's two panes show the same
   * scenario moment, however differently their stores answer. @default alone
   */
  playback?: PlaybackGroup;
  /** Real time, for the summary's real-time figures only. @default performance.now */
  realNow?: () => number;
  /** Source of the run id's 8 characters. @default random */
  generateId?: () => string;
  signal?: AbortSignal;
  /** Switch coordination mechanisms off, to show what each one does. @default none */
  ablation?: RunAblation;
}

/** A run in progress. */
export interface RunHandle {
  /** `nv-xxxxxxxx` or `sw-xxxxxxxx`. */
  readonly runId: string;
  /** Calls `listener` with every past event first, then each new one. Returns unsubscribe. */
  subscribe(listener: (event: ScenarioEvent) => void): () => void;
  /** Resolves after `run-end` is persisted; rejects when the run fails. */
  readonly done: Promise<RunSummary>;
  /**
   * Real (wall-clock) milliseconds so far: the whole run, and the part spent waiting on the store.
   * Kept out of the events and the summary: they depend on the machine, the outcome does not.
   */
  realTime(): RealTime;
}

/** See {@link RunHandle.realTime}. */
export interface RealTime {
  readonly ms: number;
  readonly storeMs: number;
}

function defaultRunIdSuffix(): string {
  // A UUID's first group: 8 hexadecimal digits.
  return randomUUID().slice(0, 8);
}

/** A stable 32-bit number per agent id, so each agent's jitter does not depend on scheduling. */
function hashString(text: string): number {
  let hash = 2166136261;
  for (let index = 0; index < text.length; index += 1) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 16777619);
  }
  return hash >>> 0;
}

function agentInfo(agent: AgentSpec): AgentInfo {
  return { id: agent.id, role: agent.role, name: agent.name, color: agent.color };
}

/** What {@link runWithRestarts} needs. */
interface RestartPlan {
  agent: AgentSpec;
  steps: readonly ScenarioStep[];
  /** The run's signal. */
  signal: AbortSignal;
  clock: Clock;
  /** Scenario ms since the run started. */
  elapsed(): number;
  /** One life of the agent, on a signal its crash aborts; `joinedAt` after a restart. */
  run(signal: AbortSignal, joinedAt: number | undefined): Promise<void>;
  /** Between two lives: say so, and drop what the agent held in memory. */
  restart(): Promise<void>;
}

/**
 * Runs an agent through the scenario's `restart` steps for it: at each step's time its signal is
 * aborted with an {@link AgentCrash} (whatever it was doing stops; a build in flight is lost),
 * then it starts again from the top, as a joiner at that time. An agent that ends before a crash
 * step simply ends.
 */
async function runWithRestarts(plan: RestartPlan): Promise<void> {
  const crashes = plan.steps
    .filter((step) => step.restart === plan.agent.id)
    .map((step) => step.atMs)
    .sort((a, b) => a - b);
  let joinedAt: number | undefined;
  for (const crashAt of [...crashes, undefined]) {
    const life = new AbortController();
    const signal = AbortSignal.any([plan.signal, life.signal]);
    if (crashAt !== undefined) {
      plan.clock.sleep(Math.max(0, crashAt - plan.elapsed()), signal).then(
        () => life.abort(new AgentCrash(plan.agent.id)),
        // The life ended first (or the run stopped): no crash.
        () => undefined,
      );
    }
    try {
      await plan.run(signal, joinedAt);
      return;
    } catch (error) {
      if (!(life.signal.reason instanceof AgentCrash) || plan.signal.aborted) throw error;
    } finally {
      if (!life.signal.aborted) life.abort(new Error("ended"));
    }
    await plan.restart();
    joinedAt = crashAt;
  }
}

/**
 * Starts one pipeline on one scenario. The agents run concurrently; the mode only chooses the
 * coordination layer (message bus or shared context). Every event is persisted in the store
 * under the run id (`toRunEventEpisode`), so `shared-ctx timeline <run-id>` works afterwards.
 */
export function startRun(options: StartRunOptions): RunHandle {
  const { scenario, mode, store } = options;
  const suffix = (options.generateId ?? defaultRunIdSuffix)().toLowerCase();
  if (!/^[0-9a-z]{8}$/.test(suffix)) {
    throw new RangeError(`generateId must return 8 characters [0-9a-z] (got "${suffix}")`);
  }
  const runId = `${runIdPrefix[mode]}${suffix}`;
  const brain = options.brain ?? createOfflineBrain();
  const member = options.clock === undefined ? options.playback?.join() : undefined;
  const clock =
    options.clock ??
    createVirtualClock(
      options.speed !== undefined
        ? { pacing: { speed: options.speed, ...(member ? { member } : {}) } }
        : {},
    );
  const realNow = options.realNow ?? (() => performance.now());
  const realStart = realNow();
  // Real time spent waiting on the store: reported beside the outcome, never part of it.
  let storeMs = 0;
  const timedClock: Clock = {
    ...clock,
    exclusive: (work) =>
      clock.exclusive(async () => {
        const began = realNow();
        try {
          return await work();
        } finally {
          storeMs += realNow() - began;
        }
      }),
  };
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const events: ScenarioEvent[] = [];
  const listeners = new Set<(event: ScenarioEvent) => void>();
  const startedAt = clock.now();
  let persisted: Promise<unknown> = Promise.resolve();
  let persistError: unknown;

  const emit = (event: UnstampedEvent): void => {
    const stamped = { ...event, runId, at: Math.round(clock.now() - startedAt) } as ScenarioEvent;
    events.push(stamped);
    persisted = persisted.then(() =>
      clock.track(store.createEpisode(toRunEventEpisode(stamped))).catch((error: unknown) => {
        persistError ??= error;
      }),
    );
    for (const listener of [...listeners]) listener(stamped);
  };

  /**
   * A run that never reaches `run-end` still says how it ended: `interrupted` when the caller's
   * signal stopped it (with the signal's reason), else `failed` with the error. Written after every
   * queued event and before `done` rejects, so the record is whole when the caller exits.
   */
  const recordStop = async (error: unknown): Promise<never> => {
    const interrupted = options.signal?.aborted === true;
    const cause: unknown = interrupted ? options.signal?.reason : error;
    const stop = toRunStopEpisode({
      runId,
      state: interrupted ? "interrupted" : "failed",
      reason: cause instanceof Error ? cause.message : String(cause),
      at: Math.round(clock.now() - startedAt),
    });
    // A store that cannot take it (the reason the run failed, perhaps) must not hide `error`.
    persisted = persisted.then(() => clock.track(store.createEpisode(stop)).catch(() => undefined));
    await persisted;
    throw error;
  };

  const done = (async (): Promise<RunSummary> => {
    const controller = new AbortController();
    const signal = options.signal
      ? AbortSignal.any([options.signal, controller.signal])
      : controller.signal;
    // Every agent's sleeps and builds listen on it: a team of ten is not a leak.
    setMaxListeners(Math.max(10, scenario.agents.length * 4), signal);
    const slices = decomposeTask(scenario.task);
    const elapsed = () => clock.now() - startedAt;
    const coordination = await openCoordination({
      mode,
      store,
      runId,
      scenario,
      emit,
      clock: timedClock,
      now: elapsed,
      ...(options.ablation ? { ablation: options.ablation } : {}),
    });
    const reproducible = brain.reproducible === true;
    let thinkingTokens = 0;
    try {
      emit({
        type: "run-start",
        mode,
        scenario: scenario.name,
        task: scenario.task,
        brain: brain.name,
        agents: scenario.agents.map(agentInfo),
        ...(Object.keys(scenario.dependsOn).length > 0 ? { dependsOn: scenario.dependsOn } : {}),
      });
      // A store that cannot take the run (a server that is down) fails the run before any agent
      // spends work, instead of after the whole run has been played.
      await persisted;
      if (persistError !== undefined) throw persistError;
      let releaseWorkers: () => void = () => undefined;
      const workersDone = new Promise<void>((resolve) => {
        releaseWorkers = resolve;
      });
      // Each Planner says when its decisions are out; the review waits for them (and the Coders).
      const decided = new Map<string, () => void>();
      const plannersDecided = Promise.all(
        scenario.agents
          .filter((agent) => agent.role === "planner")
          .map((agent) => new Promise<void>((resolve) => decided.set(agent.id, resolve))),
      );
      const runtimeOf = (agent: AgentSpec, signal: AbortSignal): AgentRuntime => {
        const random = createSeededRandom(seed ^ hashString(agent.id));
        const duration = (baseMs: number) =>
          baseMs + Math.floor(random() * (scenario.timings.jitterMs + 1));
        return {
          agent,
          scenario,
          brain,
          coordination,
          clock: timedClock,
          signal,
          ablation: options.ablation ?? {},
          slice: agent.slice ?? slices[agent.role],
          emit,
          duration,
          think: async () => {
            await clock.sleep(duration(agent.thinkMs ?? scenario.timings.thinkMs), signal);
            // A model reports what it really spent (onUsage); the offline brain costs the scenario's.
            if (reproducible) thinkingTokens += scenario.costs.tokensPerThink;
          },
          consult: async (work) => {
            if (reproducible) return timedClock.track(work);
            // A model's answer takes real time: that is how long this agent thought.
            const began = realNow();
            const answer = await timedClock.track(work);
            await timedClock.sleep(Math.round(realNow() - began), signal);
            return answer;
          },
          attributeCollision: (module, agents) =>
            collisionCauseOf(events, {
              module,
              agents,
              duplicate: !events.some(
                (event) =>
                  event.type === "decision-write" &&
                  event.target === module &&
                  event.value === "deprecate" &&
                  event.agentId === agents[0],
              ),
            }),
          spendThinking: (tokens) => {
            thinkingTokens += tokens;
          },
          decided: () => decided.get(agent.id)?.(),
          workersDone,
          plannersDecided,
        };
      };
      const runAgent = async (agent: AgentSpec): Promise<void> => {
        await clock.sleep(agent.startAtMs, signal);
        coordination.join(agent.id);
        if (agent.role === "planner") await runPlanner(runtimeOf(agent, signal));
        else if (agent.role === "coder") {
          await runWithRestarts({
            agent,
            steps: scenario.steps,
            signal,
            clock,
            elapsed,
            run: (agentSignal, joinedAt) =>
              runCoder(runtimeOf(agent, agentSignal), joinedAt === undefined ? {} : { joinedAt }),
            restart: async () => {
              emit({ type: "agent-restart", agentId: agent.id });
              await coordination.restart(agent.id);
            },
          });
        } else await runReviewer(runtimeOf(agent, signal));
      };
      const failFast = (task: Promise<void>) =>
        task.catch((error: unknown) => {
          controller.abort(error);
          throw error;
        });
      const workerAgents = scenario.agents.filter((agent) => agent.role !== "reviewer");
      const workers = workerAgents.map((agent) => failFast(runAgent(agent)));
      // Planners stay on duty (to settle escalations) until the Coders are done; the work is done
      // when every Coder has ended and every Planner has published (a Planner that fails counts).
      const coders = workers.filter((_, index) => workerAgents[index]?.role === "coder");
      const planners = workers.filter((_, index) => workerAgents[index]?.role === "planner");
      const plannersOut = Promise.race([plannersDecided, Promise.allSettled(planners)]);
      void Promise.all([Promise.allSettled(coders), plannersOut]).then(() => releaseWorkers());
      const reviewers = scenario.agents
        .filter((agent) => agent.role === "reviewer")
        .map((agent) => failFast(runAgent(agent)));
      const outcomes = await Promise.allSettled([...workers, ...reviewers]);
      const failure = outcomes.find((outcome) => outcome.status === "rejected");
      if (failure) throw failure.reason;
      const summary = summarizeRun(events, {
        runId,
        mode,
        scenario: scenario.name,
        task: scenario.task,
        brain: brain.name,
        thinkingTokens,
        endAt: Math.round(clock.now() - startedAt),
        reproducible,
      });
      emit({ type: "run-end", summary });
      await persisted;
      if (persistError !== undefined) throw persistError;
      return summary;
    } finally {
      await coordination.close();
    }
  })()
    .catch(recordStop)
    // Over, whichever way: it no longer holds the other runs of its playback group back.
    .finally(() => member?.leave());

  return {
    runId,
    subscribe: (listener) => {
      for (const event of events) listener(event);
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    done,
    realTime: () => ({ ms: Math.round(realNow() - realStart), storeMs: Math.round(storeMs) }),
  };
}
