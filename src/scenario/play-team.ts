import { setMaxListeners } from "node:events";
import {
  AgentCrash,
  type AgentRuntime,
  type RunAblation,
  type UnstampedEvent,
} from "../agents/agent-runtime.js";
import type { Brain } from "../agents/brain.js";
import { runCoder } from "../agents/coder-agent.js";
import type { TaskSlices } from "../agents/decompose-task.js";
import { runPlanner } from "../agents/planner-agent.js";
import { runReviewer } from "../agents/reviewer-agent.js";
import type { Coordination } from "../coordination/coordination.js";
import { collisionCauseOf } from "./attribute-collision.js";
import { type Clock, createSeededRandom } from "./clock.js";
import type { CollisionCause, ScenarioEvent } from "./scenario-events.js";
import {
  type AgentSpec,
  coordinatorStep,
  type Scenario,
  type ScenarioStep,
} from "./scenario-schema.js";

/**
 * The agents of one run, played to their end: every Planner and Coder at once, the Reviewers
 * waiting for their work. Each agent gets its own {@link AgentRuntime} on the mode's coordination.
 */

/** What {@link playTeam} plays the agents with. */
export interface TeamPlay {
  scenario: Scenario;
  brain: Brain;
  coordination: Coordination;
  /** The run's clock: agents sleep on it. */
  clock: Clock;
  /** The same clock, timing the real time spent in store calls: what the agents are given. */
  timedClock: Clock;
  /** The caller's signal, when it may stop the run. */
  signal: AbortSignal | undefined;
  ablation: RunAblation | undefined;
  /** Fixes every agent's jitter. */
  seed: number;
  /** The task's slices, for an agent whose scenario entry gives it none. */
  slices: TaskSlices;
  emit(event: UnstampedEvent): void;
  /** The run's events so far (a collision's cause is read from them). */
  events: readonly ScenarioEvent[];
  /** Scenario ms since the run started. */
  elapsed(): number;
  /** Real time, for how long a model's answer took. */
  realNow(): number;
}

/** What every agent's runtime shares with the others. */
interface TeamShared extends TeamPlay {
  signal: AbortSignal;
  /** Each Planner's "my decisions are out", by agent id. */
  decided: Map<string, () => void>;
  workersDone: Promise<void>;
  plannersDecided: Promise<unknown>;
  /** The tokens the whole team has spent thinking. */
  thinking: { tokens: number };
}

/**
 * Plays every agent of the scenario; the first one to fail stops the others and fails the team.
 * Resolves with the tokens the team spent thinking (builds are counted from their events).
 */
export async function playTeam(play: TeamPlay): Promise<{ thinkingTokens: number }> {
  const controller = new AbortController();
  const signal = play.signal
    ? AbortSignal.any([play.signal, controller.signal])
    : controller.signal;
  // Every agent's sleeps and builds listen on it: a team of ten is not a leak.
  setMaxListeners(Math.max(10, play.scenario.agents.length * 4), signal);
  let releaseWorkers: () => void = () => undefined;
  const workersDone = new Promise<void>((resolve) => {
    releaseWorkers = resolve;
  });
  // Each Planner says when its decisions are out; the review waits for them (and the Coders).
  const decided = new Map<string, () => void>();
  const plannersDecided = Promise.all(
    play.scenario.agents
      .filter((agent) => agent.role === "planner")
      .map((agent) => new Promise<void>((resolve) => decided.set(agent.id, resolve))),
  );
  const team: TeamShared = {
    ...play,
    signal,
    decided,
    workersDone,
    plannersDecided,
    thinking: { tokens: 0 },
  };
  const failFast = (task: Promise<void>) =>
    task.catch((error: unknown) => {
      controller.abort(error);
      throw error;
    });
  const workerAgents = play.scenario.agents.filter((agent) => agent.role !== "reviewer");
  const workers = workerAgents.map((agent) => failFast(playAgent(agent, team)));
  // Planners stay on duty (to settle escalations) until the Coders are done; the work is done
  // when every Coder has ended and every Planner has published (a Planner that fails counts).
  const coders = workers.filter((_, index) => workerAgents[index]?.role === "coder");
  const planners = workers.filter((_, index) => workerAgents[index]?.role === "planner");
  const plannersOut = Promise.race([plannersDecided, Promise.allSettled(planners)]);
  void Promise.all([Promise.allSettled(coders), plannersOut]).then(() => releaseWorkers());
  // Steps on the coordination stop with the team: none may land after the run has ended.
  const teamDone = new AbortController();
  void restartCoordinatorAtSteps(team, AbortSignal.any([team.signal, teamDone.signal]));
  const reviewers = play.scenario.agents
    .filter((agent) => agent.role === "reviewer")
    .map((agent) => failFast(playAgent(agent, team)));
  const outcomes = await Promise.allSettled([...workers, ...reviewers]);
  teamDone.abort();
  const failure = outcomes.find((outcome) => outcome.status === "rejected");
  if (failure) throw failure.reason;
  return { thinkingTokens: team.thinking.tokens };
}

/** The scenario's `restart: coordinator` steps, each at its time: the coordination restarts. */
async function restartCoordinatorAtSteps(team: TeamShared, signal: AbortSignal): Promise<void> {
  const times = team.scenario.steps
    .filter((step) => step.restart === coordinatorStep)
    .map((step) => step.atMs)
    .sort((a, b) => a - b);
  for (const atMs of times) {
    try {
      await team.clock.sleep(Math.max(0, atMs - team.elapsed()), signal);
    } catch {
      return; // the run stopped first
    }
    const lost = await team.coordination.restartCoordinator();
    team.emit({ type: "coordinator-restart", lost });
  }
}

/** One agent, from its start time to its end: a Coder through its crashes and restarts. */
async function playAgent(agent: AgentSpec, team: TeamShared): Promise<void> {
  const { clock, coordination, signal } = team;
  await clock.sleep(agent.startAtMs, signal);
  coordination.join(agent.id);
  if (agent.role === "planner") await runPlanner(agentRuntime(agent, signal, team));
  else if (agent.role === "coder") {
    await runWithRestarts({
      agent,
      steps: team.scenario.steps,
      signal,
      clock,
      elapsed: team.elapsed,
      run: (agentSignal, joinedAt) =>
        runCoder(
          agentRuntime(agent, agentSignal, team),
          joinedAt === undefined ? {} : { joinedAt },
        ),
      restart: async () => {
        team.emit({ type: "agent-restart", agentId: agent.id });
        await coordination.restart(agent.id);
      },
    });
  } else await runReviewer(agentRuntime(agent, signal, team));
}

/** A stable 32-bit number per agent id, so each agent's jitter does not depend on scheduling. */
function hashString(text: string): number {
  let hash = 2166136261;
  for (let index = 0; index < text.length; index += 1) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 16777619);
  }
  return hash >>> 0;
}

/** What one life of an agent works with: its slice, its seeded jitter, the team's coordination. */
function agentRuntime(agent: AgentSpec, signal: AbortSignal, team: TeamShared): AgentRuntime {
  const { scenario, brain, clock, timedClock, realNow } = team;
  const random = createSeededRandom(team.seed ^ hashString(agent.id));
  const duration = (baseMs: number) =>
    baseMs + Math.floor(random() * (scenario.timings.jitterMs + 1));
  const reproducible = brain.reproducible === true;
  return {
    agent,
    scenario,
    brain,
    coordination: team.coordination,
    clock: timedClock,
    signal,
    ablation: team.ablation ?? {},
    slice: agent.slice ?? team.slices[agent.role],
    emit: team.emit,
    duration,
    think: async () => {
      await clock.sleep(duration(agent.thinkMs ?? scenario.timings.thinkMs), signal);
      // A model reports what it really spent (onUsage); the offline brain costs the scenario's.
      if (reproducible) team.thinking.tokens += scenario.costs.tokensPerThink;
    },
    consult: async (work) => {
      if (reproducible) return timedClock.track(work);
      // A model's answer takes real time: that is how long this agent thought.
      const began = realNow();
      const answer = await timedClock.track(work);
      await timedClock.sleep(Math.round(realNow() - began), signal);
      return answer;
    },
    attributeCollision: (module, agents) => collisionCauseIn(team.events, module, agents),
    spendThinking: (tokens) => {
      team.thinking.tokens += tokens;
    },
    decided: () => team.decided.get(agent.id)?.(),
    workersDone: team.workersDone,
    plannersDecided: team.plannersDecided,
  };
}

/**
 * Why the Reviewer's collision on `module` happened: a decision contradicted when the first agent
 * named (the decider) deprecated the module, else a module built twice.
 */
function collisionCauseIn(
  events: readonly ScenarioEvent[],
  module: string,
  agents: readonly string[],
): CollisionCause {
  return collisionCauseOf(events, {
    module,
    agents,
    duplicate: !events.some(
      (event) =>
        event.type === "decision-write" &&
        event.target === module &&
        event.value === "deprecate" &&
        event.agentId === agents[0],
    ),
  });
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
