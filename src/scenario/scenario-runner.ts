import { randomUUID } from "node:crypto";
import type { RunAblation, UnstampedEvent } from "../agents/agent-runtime.js";
import type { Brain } from "../agents/brain.js";
import { decomposeTask } from "../agents/decompose-task.js";
import { createOfflineBrain } from "../agents/offline-brain.js";
import type { ContextStore } from "../context/context-store.js";
import { type Clock, createVirtualClock } from "./clock.js";
import { CostMeter } from "./cost/cost-meter.js";
import { openCoordination } from "./open-coordination.js";
import { playTeam } from "./play-team.js";
import type { PlaybackGroup, PlaybackMember } from "./playback-group.js";
import { createRunLog, type RunLog } from "./run-log.js";
import { runIdPrefix } from "./run-record.js";
import type { AgentInfo, RunMode, RunSummary, ScenarioEvent } from "./scenario-events.js";
import type { AgentSpec, Scenario } from "./scenario-schema.js";
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

function agentInfo(agent: AgentSpec): AgentInfo {
  return { id: agent.id, role: agent.role, name: agent.name, color: agent.color };
}

/**
 * Starts one pipeline on one scenario. The agents run concurrently; the mode only chooses the
 * coordination layer (message bus or shared context). Every event is persisted in the store
 * under the run id (`toRunEventEpisode`), so `shared-ctx timeline <run-id>` works afterwards.
 */
export function startRun(options: StartRunOptions): RunHandle {
  const runId = runIdOf(options);
  const brain = options.brain ?? createOfflineBrain();
  const { clock, member } = runClockOf(options);
  const realNow = options.realNow ?? (() => performance.now());
  const realStart = realNow();
  const storeCalls = timeStoreCalls(clock, realNow);
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const log = createRunLog({ runId, store: options.store, clock });
  const done = playRun({
    options,
    runId,
    brain,
    clock,
    timedClock: storeCalls.clock,
    realNow,
    seed,
    log,
  })
    .catch((error: unknown) => log.recordStop(error, options.signal))
    // Over, whichever way: it no longer holds the other runs of its playback group back.
    .finally(() => member?.leave());
  return {
    runId,
    subscribe: log.subscribe,
    done,
    realTime: () => ({
      ms: Math.round(realNow() - realStart),
      storeMs: Math.round(storeCalls.ms()),
    }),
  };
}

/** `nv-xxxxxxxx` or `sw-xxxxxxxx`: the mode's prefix and 8 characters from `generateId`. */
function runIdOf(options: StartRunOptions): string {
  const suffix = (options.generateId ?? defaultRunIdSuffix)().toLowerCase();
  if (!/^[0-9a-z]{8}$/.test(suffix)) {
    throw new RangeError(`generateId must return 8 characters [0-9a-z] (got "${suffix}")`);
  }
  return `${runIdPrefix[options.mode]}${suffix}`;
}

/**
 * The run's clock: the one given, else a virtual clock paced at `speed` (in step with the playback
 * group, which the run joins: `member`, to leave when the run is over).
 */
function runClockOf(options: StartRunOptions): { clock: Clock; member?: PlaybackMember } {
  const member = options.clock === undefined ? options.playback?.join() : undefined;
  const clock =
    options.clock ??
    createVirtualClock(
      options.speed !== undefined
        ? { pacing: { speed: options.speed, ...(member ? { member } : {}) } }
        : {},
    );
  return member ? { clock, member } : { clock };
}

/**
 * The clock with its store calls (`exclusive`) timed in real time: reported beside the outcome
 * (`realTime().storeMs`), never part of it.
 */
function timeStoreCalls(clock: Clock, realNow: () => number): { clock: Clock; ms(): number } {
  let storeMs = 0;
  return {
    clock: {
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
    },
    ms: () => storeMs,
  };
}

/** What {@link playRun} plays: {@link startRun}'s options and what it made of them. */
interface RunSetup {
  options: StartRunOptions;
  runId: string;
  brain: Brain;
  clock: Clock;
  /** The clock that also times store calls: the one coordination and agents are given. */
  timedClock: Clock;
  realNow(): number;
  seed: number;
  log: RunLog;
}

/**
 * The run itself: opens the mode's coordination, says the run started (and that the store took
 * it), plays the team, then sums the run up in `run-end`.
 */
async function playRun(run: RunSetup): Promise<RunSummary> {
  const { options, brain, log } = run;
  const { scenario, mode } = options;
  const slices = decomposeTask(scenario.task);
  // The one cost rule, applied here for every mode: the coordination's bus and store are metered.
  const meter = new CostMeter();
  const coordination = await openCoordination({
    meter,
    mode,
    store: options.store,
    runId: run.runId,
    scenario,
    emit: log.emit,
    clock: run.timedClock,
    now: log.elapsed,
    ...(options.ablation ? { ablation: options.ablation } : {}),
  });
  try {
    log.emit(runStartEvent(scenario, mode, brain));
    // A store that cannot take the run (a server that is down) fails the run before any agent
    // spends work, instead of after the whole run has been played.
    await log.flush();
    const { thinkingTokens } = await playTeam({
      scenario,
      brain,
      coordination,
      clock: run.clock,
      timedClock: run.timedClock,
      signal: options.signal,
      ablation: options.ablation,
      seed: run.seed,
      slices,
      emit: log.emit,
      events: log.events,
      elapsed: log.elapsed,
      realNow: run.realNow,
    });
    const summary = summarizeRun(log.events, {
      runId: run.runId,
      mode,
      scenario: scenario.name,
      task: scenario.task,
      brain: brain.name,
      thinkingTokens,
      endAt: Math.round(log.elapsed()),
      reproducible: brain.reproducible === true,
      cost: meter.costOf(log.events),
    });
    log.emit({ type: "run-end", summary });
    await log.flush();
    return summary;
  } finally {
    await coordination.close();
  }
}

/** The run's first event: what is played, by whom, in which mode. */
function runStartEvent(scenario: Scenario, mode: RunMode, brain: Brain): UnstampedEvent {
  return {
    type: "run-start",
    mode,
    scenario: scenario.name,
    task: scenario.task,
    brain: brain.name,
    agents: scenario.agents.map(agentInfo),
    ...(Object.keys(scenario.dependsOn).length > 0 ? { dependsOn: scenario.dependsOn } : {}),
  };
}
