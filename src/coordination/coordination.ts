import type { BuildResult, KnownDecision, KnownDispute } from "./knowledge.js";
import type { PlannedDecision } from "./scenario-schema.js";

/**
 * The only thing that differs between the modes. The agent loops call these methods at the same
 * points in every mode; `naive` and `broadcast` implement them with a message bus, `statewave`
 * with `SharedContext` and `SharedState`. What a mode cannot do, its methods do not pretend to:
 * a bus grants every claim and never interrupts work in flight.
 */

/** What an agent knows right before a unit of work. */
export interface KnownState {
  decisions: KnownDecision[];
  disputes: KnownDispute[];
  /** Module -> the agent that claimed it, as far as this agent can tell. */
  claims: Record<string, string>;
  /** How much the agent had to read to learn this, in tokens (about 4 characters each). */
  tokens: number;
  /**
   * Modules this agent's own recorded results say it built: after a restart, the only way it
   * knows (its memory is gone). Set only for an agent that restarted. @default none
   */
  ownBuilds?: readonly string[];
}

/** The answer to a claim: build it, or do not (and because of whom). */
export type ClaimOutcome =
  | { granted: true }
  | { granted: false; reason: string; causedBy: string | null };

/** Why work in flight must stop. */
export interface InvalidationNotice {
  reason: string;
  by: string | null;
  /**
   * The contradicting decision was made without seeing the one the work stands on: the two are a
   * dispute, so the work is held (paused, its progress kept) until the lead rules, not cut short.
   * @default false
   */
  disputed?: boolean;
}

/** An escalation handed to an arbiter, with the values as the agents wrote them. */
export interface ArbitrationRequest {
  escalationId: string;
  key: string;
  /** `at`: when each wrote, in scenario milliseconds. */
  contenders: Array<{ agentId: string; value: string; at: number }>;
}

/** The coordination layer as the agents see it. */
export interface Coordination {
  /** An agent starts (message modes: from now on it receives messages; it missed the earlier ones). */
  join(agentId: string): void;
  /**
   * The agent crashed and starts again: drop what it held in memory (what it had read, its
   * replica, its inbox) and let it catch up as a joiner would (a transcript, the current state,
   * or nothing), from now on.
   */
  restart(agentId: string): Promise<void>;
  /** Before each unit of work: what this agent can know now. */
  read(agentId: string, task: string): Promise<KnownState>;
  /**
   * After deciding: publish a decision, under the id its `decision-write` event carries.
   * @param decisionId @default `<agentId>#<n>`, its n-th decision
   */
  publishDecision(agentId: string, decision: PlannedDecision, decisionId?: string): Promise<void>;
  /**
   * Before building: take the module. Only concurrent claims are settled here (decisions are what
   * `read` is for). Message modes: a claim is announced, never refused (messages are not atomic).
   */
  claim(agentId: string, module: string): Promise<ClaimOutcome>;
  /**
   * From the read before a module until its build ends: calls `onInvalid` when a fact lands that
   * contradicts working on it (the module deprecated by someone else). Returns stop.
   */
  watchModule(
    agentId: string,
    module: string,
    onInvalid: (notice: InvalidationNotice) => void,
  ): () => void;
  /** After building: tell whoever needs to know. */
  reportResult(agentId: string, result: BuildResult): Promise<void>;
  /**
   * The Reviewer's view once everyone is done: every decision ever published, every build, and
   * the disputes still open (decisions that disagree and that nobody has settled).
   */
  collectForReview(
    agentId: string,
  ): Promise<{ decisions: KnownDecision[]; results: BuildResult[]; disputes: KnownDispute[] }>;
  /**
   * Lets `agentId` arbitrate escalations until `until` settles: `choose` returns the winning value,
   * or undefined to leave the escalation open. Naive: nothing is ever escalated.
   */
  arbitrate(
    agentId: string,
    choose: (request: ArbitrationRequest) => string | undefined,
    until: Promise<void>,
  ): Promise<void>;
  /**
   * The coordination's own process restarts (a `restart: coordinator` step): whatever it held
   * only in memory is gone. Returns what was lost, as a sentence ("nothing" for a durable store).
   */
  restartCoordinator(): Promise<string>;
  /** Releases replicas and subscriptions. */
  close(): Promise<void>;
}
