import type { Clock } from "../scenario/clock.js";
import type { Coordination } from "../scenario/pipelines/coordination.js";
import type { ScenarioEvent } from "../scenario/scenario-events.js";
import type { AgentSpec, Scenario } from "../scenario/scenario-schema.js";
import type { Brain } from "./brain.js";

/** An event before the runner stamps it with the run id and the time. */
export type UnstampedEvent = ScenarioEvent extends infer Event
  ? Event extends ScenarioEvent
    ? Omit<Event, "runId" | "at">
    : never
  : never;

/** Test-only switches that remove one piece of coordination, to prove it is what matters. */
export interface RunAblation {
  /** The Coder neither reads the shared context nor looks at claims before acting. */
  coderSkipsContextRead?: boolean;
}

/** Everything one agent loop needs; built by the runner, the same in both modes. */
export interface AgentRuntime {
  readonly agent: AgentSpec;
  readonly scenario: Scenario;
  readonly brain: Brain;
  readonly coordination: Coordination;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly ablation: RunAblation;
  /** The agent's slice of the task. */
  readonly slice: string;
  emit(event: UnstampedEvent): void;
  /** `baseMs` plus this agent's next seeded jitter (0..timings.jitterMs). */
  duration(baseMs: number): number;
  /** One thinking step: waits `duration(thinkMs)` and counts `tokensPerThink`. */
  think(): Promise<void>;
  /** Adds tokens spent thinking (builds are counted from their events). */
  spendThinking(tokens: number): void;
  /** Settles once every Planner and Coder has ended. */
  readonly workersDone: Promise<void>;
}
