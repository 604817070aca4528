import type { Clock } from "../coordination/clock.js";
import type { Coordination } from "../coordination/coordination.js";
import type {
  CollisionCause,
  CostMechanism,
  Mechanism,
  ScenarioEvent,
} from "../coordination/run-events.js";
import type { AgentSpec, Scenario } from "../coordination/scenario-schema.js";
import type { Brain } from "./brain.js";

/** An event before the runner stamps it with the run id and the time. */
export type UnstampedEvent = ScenarioEvent extends infer Event
  ? Event extends ScenarioEvent
    ? Omit<Event, "runId" | "at">
    : never
  : never;

/**
 * Switches that remove one coordination mechanism, and only that one, to prove it is what made a
 * difference: a collision a mechanism avoided comes back when it is switched off.
 */
export interface RunAblation {
  /** The mechanisms switched off. @default [] */
  off?: readonly (Mechanism | CostMechanism)[];
}

/** Whether `mechanism` is switched on in a run with `ablation`. */
export function isOn(ablation: RunAblation, mechanism: Mechanism | CostMechanism): boolean {
  return !(ablation.off ?? []).includes(mechanism);
}

/** The reason an agent's signal is aborted when a scenario step crashes it. */
export class AgentCrash extends Error {
  constructor(readonly agentId: string) {
    super(`${agentId} crashed`);
    this.name = "AgentCrash";
  }
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
  /**
   * Asks the brain: takes no scenario time with the offline brain (the answer is computed), and
   * the model's real latency with a model (its thinking really takes that long).
   */
  consult<T>(work: Promise<T>): Promise<T>;
  /** Why a collision the Reviewer found happened (judged from the run's events). */
  attributeCollision(module: string, agents: readonly string[]): CollisionCause;
  /** Adds tokens spent thinking (builds are counted from their events). */
  spendThinking(tokens: number): void;
  /** A Planner calls it once its decisions are published (the review waits for that). */
  decided(): void;
  /** Settles once every Coder has ended and every Planner has published its decisions. */
  readonly workersDone: Promise<void>;
  /** Settles once every Planner has published its decisions (never, if one fails first). */
  readonly plannersDecided: Promise<unknown>;
}
