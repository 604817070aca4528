import type { BuildResult, KnownDecision, KnownDispute } from "../coordination/knowledge.js";
import type { PlannedDecision } from "../coordination/scenario-schema.js";

export type { BuildResult, KnownDecision, KnownDispute } from "../coordination/knowledge.js";

/**
 * What an agent thinks with. The agent loops (planner, coder, reviewer) are the same in both
 * pipelines and with every brain; a brain only answers the questions an agent asks at each step.
 * Two brains ship: the offline deterministic one (default) and an LLM one (`LLM_MODEL`).
 */

/** What a Planner knows when it decides. */
export interface PlannerInput {
  agentId: string;
  /** The Planner's slice of the task. */
  slice: string;
  inventory: readonly string[];
  /** Decisions the scenario says this Planner intends; a brain may refine them. */
  intended?: readonly PlannedDecision[];
  /** Decisions already known (from the context it read). */
  known: readonly KnownDecision[];
}

/** What a Coder knows when it plans its modules. */
export interface ModulePlanInput {
  agentId: string;
  slice: string;
  inventory: readonly string[];
  /** Modules the scenario says this Coder plans; a brain may refine them. */
  intended?: readonly string[];
}

/** What a Coder knows right before one unit of work. */
export interface ModuleStepInput {
  agentId: string;
  module: string;
  decisions: readonly KnownDecision[];
  disputes: readonly KnownDispute[];
  /** Who else already claimed the module, if the Coder can know. */
  claimedBy?: string;
  /** The modules it depends on (transitively): a decision retiring one reaches it. @default [] */
  dependsOn?: readonly string[];
}

/** Build the module, or skip it (and say why and because of whom). */
export type ModuleStepChoice =
  | { action: "build" }
  | {
      action: "skip";
      reason: string;
      causedBy: string | null;
      /** A replacement decision moved the work: build this module instead. */
      moveTo?: string;
    };

/** What the Reviewer sees at the end. */
export interface ReviewInput {
  agentId: string;
  decisions: readonly KnownDecision[];
  results: readonly BuildResult[];
  /**
   * Disputes still open, as the coordination layer reports them: targets agents decided
   * differently that nobody has settled.
   * @default []
   */
  disputes?: readonly KnownDispute[];
}

/** Work that contradicts a decision or duplicates other work. */
export interface ReviewFinding {
  module: string;
  /** The agents involved (decider first, then builders). */
  agents: string[];
  description: string;
  /** The builds that were in vain. */
  wasted: BuildResult[];
}

/**
 * A dispute still open at the review: agents decided one target differently and nobody settled
 * it. Not a collision: no work was wasted on it, but it needs a decision.
 */
export interface OpenDispute {
  target: string;
  /** Each side with what it decided ("deprecate", "keep", …), as first reported. */
  contenders: Array<{ agentId: string; value: string }>;
}

/** What the Reviewer concludes: collisions (work wasted) and disputes still open (work held). */
export interface ReviewReport {
  findings: ReviewFinding[];
  openDisputes: OpenDispute[];
}

/** What every question to a brain may carry. */
export interface BrainCallOptions {
  signal?: AbortSignal;
  /** Told the tokens a model reported for the answer (input + output); the offline brain never calls it. */
  onUsage?: (tokens: number) => void;
}

/** The questions agents ask their brain. */
export interface Brain {
  /** Shown in the output: "offline (deterministic)" or "openai/gpt-4o-mini". */
  readonly name: string;
  /**
   * True when the brain gives the same answers every time (the offline brain): a run is then
   * reproducible from scenario, mode and seed, and a think step costs the scenario's tokens.
   * A model reports its own tokens (`onUsage`) and takes its real latency. @default false
   */
  readonly reproducible?: boolean;
  decide(input: PlannerInput, options?: BrainCallOptions): Promise<PlannedDecision[]>;
  planModules(input: ModulePlanInput, options?: BrainCallOptions): Promise<string[]>;
  chooseModuleStep(input: ModuleStepInput, options?: BrainCallOptions): Promise<ModuleStepChoice>;
  review(input: ReviewInput, options?: BrainCallOptions): Promise<ReviewReport>;
}
