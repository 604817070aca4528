import type { Authority } from "../context/authority.js";
/**
 * The one typed event stream a scenario run emits. The Ink UI, the plain output and `--json`
 * all consume exactly these events, so what a user sees is what the run did.
 *
 * Tags are noun-action (`agent-start`, `module-end`). `at` is milliseconds since the run started,
 * on the run's scenario clock: it depends only on the scenario, the mode and the seed, never on
 * `--speed`, machine load or the store's latency.
 */

/**
 * How the agents coordinate:
 * - `naive`: isolated; each agent sees only its own brief, and reports to the Reviewer.
 * - `broadcast`: plain message passing: every decision, claim and result goes to every agent that
 *   has joined, read at the same points where a shared-context agent reads its context; nothing
 *   more (no interrupt, no transcript for a joiner, no claim coordinator, no filter).
 * - `group-chat`: the strongest message passing we can build: broadcast plus a bus listener that
 *   interrupts contradicted work, the transcript replayed to a joiner, a first-come claim
 *   coordinator, contradictions flagged, reading filtered to what bears on the task.
 * - `statewave`: the shared context (read before acting, publish decisions, claim modules).
 */
export type RunMode = "naive" | "broadcast" | "group-chat" | "statewave";

/** Every mode, in the order a comparison shows them. */
export const runModes: readonly RunMode[] = ["naive", "broadcast", "group-chat", "statewave"];

/**
 * The coordination mechanisms a difference between modes is attributed to. Each avoided conflict,
 * cancelled build and collision names one; each can be switched off alone (`RunAblation`).
 * - `read-before-act`: the agent read the decision before acting on the module.
 * - `mid-build invalidation`: a decision landed after the agent last read, and it was told at once.
 * - `atomic claim`: two agents claimed one module; exactly one got it.
 * - `dispute surfaced`: agents decided one module differently; it was held, not silently won.
 * - `history for a late joiner`: the decision was made before the agent joined; it read it anyway.
 * - `bounded context`: what an agent must read stays within a token budget as the team grows.
 */
export type Mechanism =
  | "read-before-act"
  | "mid-build invalidation"
  | "atomic claim"
  | "dispute surfaced"
  | "history for a late joiner"
  | "bounded context";

/**
 * A mechanism that changes what coordination costs, never what happens: `topic routing` (group
 * chat) delivers a message only to the members it bears on, a filter before delivery.
 */
export type CostMechanism = "topic routing";

/** Every mechanism, in the order the output lists them. */
export const mechanisms: readonly Mechanism[] = [
  "read-before-act",
  "mid-build invalidation",
  "atomic claim",
  "dispute surfaced",
  "history for a late joiner",
  "bounded context",
];

/**
 * Why a collision happened: the mechanism that would have prevented it and that the mode lacked,
 * or `decided after the work` when the decision came after the build ended (nothing could help).
 */
export type CollisionCause = Exclude<Mechanism, "bounded context"> | "decided after the work";
/** What an agent does: planners decide the architecture, coders build modules, reviewers review at the end. */
export type AgentRole = "planner" | "coder" | "reviewer";

/** One agent of the run, as `run-start` introduces it to the UI and the plain output. */
export interface AgentInfo {
  /** The agent's id: `agentId` in every other event. */
  readonly id: string;
  /** What the agent does in the run. */
  readonly role: AgentRole;
  /** Display name, e.g. "Planner". */
  readonly name: string;
  /** A colour name Ink understands ("cyan", "magenta", "#ff8800"). */
  readonly color: string;
}

/** The referee's verdict on a run: the work matches the final decisions, or it does not, or the decisions are still open. */
export type RefereeVerdict = "clean" | "collision" | "unresolved";

/** What happened to one module, judged against the final authoritative decision state. */
export interface ModuleJudgement {
  readonly module: string;
  /**
   * The module's final fate: `retired` (deprecated or replaced, itself or a module it depends
   * on), `kept` (a decision keeps it), `undecided` (no decision bears on it), `disputed` (decisions
   * made without seeing each other still disagree).
   */
  readonly fate: "retired" | "kept" | "undecided" | "disputed";
  /** The agents that planned it (a replacement's planners are those of the module it replaces). */
  readonly plannedBy: readonly string[];
  /** How many times it was fully built, cut short and skipped. */
  readonly built: number;
  readonly cancelled: number;
  readonly skipped: number;
  /**
   * How many times work on it was held (paused on a dispute, `module-hold`); a held build that
   * resumed counts once in `built`, one that stopped once in `cancelled`. @default 0
   */
  readonly held?: number;
  /**
   * `ok` (the work matches the fate), `wasted` (built on a retired module, or built more than
   * once), `dropped` (planned, kept, never built), `open` (its fate is still disputed).
   */
  readonly outcome: "ok" | "wasted" | "dropped" | "open";
}

/** An action taken on a fact already superseded when it was taken. */
export interface StaleAction {
  readonly agentId: string;
  readonly module: string;
  /** Scenario milliseconds. */
  readonly at: number;
  /**
   * `build`: started (or resumed) building a module already retired or disputed; `skip`: skipped
   * one kept.
   */
  readonly action: "build" | "skip";
  /** The fate the module had at that moment. */
  readonly fateAtTheTime: ModuleJudgement["fate"];
}

/** A module decided differently by agents who never saw each other's decision, unsettled at the end. */
export interface RefereeDispute {
  readonly target: string;
  readonly contenders: readonly { readonly agentId: string; readonly value: string }[];
}

/**
 * The referee's judgement of a run (`judgeRun`): one pure function over the run's events and
 * decision history, the same for every mode. The summary's collision and waste come from it.
 */
export interface RefereeReport {
  readonly verdict: RefereeVerdict;
  /** Modules fully built in vain (retired at the end, or built more than once), sorted. */
  readonly wastedModules: readonly string[];
  /** Modules planned and kept by the final decisions that were never built, sorted. */
  readonly droppedModules: readonly string[];
  readonly openDisputes: readonly RefereeDispute[];
  readonly staleActions: readonly StaleAction[];
  /** Every module planned or touched, sorted by name. */
  readonly modules: readonly ModuleJudgement[];
}

/** What coordination delivered into one agent's context, under the one cost rule. */
export interface AgentCost {
  /** Tokens delivered into its context: messages, replays, interrupts, bundles, re-reads. */
  readonly deliveredTokens: number;
  /** Messages delivered to it (a transcript replayed is one message per line replayed). */
  readonly messagesDelivered: number;
  /** Requests its coordination made to the store. */
  readonly storeRequests: number;
}

/**
 * A run's coordination cost under the one rule (docs/runner.md, *Cost*), the same for every mode:
 * in total (store requests of the run's setup included) and per agent.
 */
export interface RunCost extends AgentCost {
  readonly byAgent: Readonly<Record<string, AgentCost>>;
}

/** What a run cost and what it wasted. */
export interface RunSummary {
  readonly runId: string;
  readonly mode: RunMode;
  readonly scenario: string;
  readonly task: string;
  /** Which brain the agents thought with: "offline (deterministic)" or "openai/gpt-4o-mini". */
  readonly brain: string;
  /** True when agents contradicted each other and the work was done anyway (found at review). */
  readonly collision: boolean;
  /** Contradictions the coordination prevented before (or while) the work was done. */
  readonly conflictsAvoided: number;
  /** The avoided conflicts by the mechanism that avoided them. */
  readonly avoidedBy: Readonly<Partial<Record<Mechanism, number>>>;
  /** Why the first collision happened (null when there was none). */
  readonly collisionCause: CollisionCause | null;
  readonly escalations: number;
  /** Disputes still open at the review (agents decided one module differently; nobody settled it). */
  readonly openDisputes: number;
  /**
   * What the agents had to read before acting, in tokens (about 4 characters each): a broadcast
   * inbox grows with every message of every agent; a context bundle is bounded by its budget.
   */
  readonly read: { readonly tokens: number; readonly largest: number; readonly reads: number };
  /** True when the outcome is reproducible from scenario, mode and seed (the offline brain). */
  readonly reproducible: boolean;
  readonly wasted: { readonly modules: number; readonly tokens: number; readonly ms: number };
  readonly totals: { readonly tokens: number; readonly ms: number };
  /** Modules built in vain, by name (the referee's `wastedModules`). */
  readonly wastedModules: readonly string[];
  /** Messages sent on the bus (message modes; 0 for the shared context). */
  readonly messages?: number;
  /**
   * What coordination delivered and asked, under the one cost rule. Absent from runs recorded
   * before the rule existed.
   */
  readonly cost?: RunCost;
  /**
   * What each `restart: coordinator` step lost, in the mode's words, in order ("the store's log is
   * durable: nothing is lost"). Absent when the coordination never restarted.
   */
  readonly coordinatorRestarts?: readonly string[];
  /**
   * The referee's judgement: `collision`, `wastedModules` and the waste above agree with it.
   * Absent from runs recorded before the referee existed.
   */
  readonly referee?: RefereeReport;
}

interface EventBase {
  readonly runId: string;
  readonly at: number;
}

/**
 * Everything a run emits, in order, discriminated by `type`. Consumers switch over it with
 * `default: checkExhaustive(event)`, so a new event type is a compile error until handled.
 */
export type ScenarioEvent =
  | (EventBase & {
      readonly type: "run-start";
      readonly mode: RunMode;
      readonly scenario: string;
      readonly task: string;
      readonly brain: string;
      readonly agents: readonly AgentInfo[];
      /** Module -> the modules it depends on (a decision on one reaches its dependents). */
      readonly dependsOn?: Readonly<Record<string, readonly string[]>>;
    })
  | (EventBase & {
      readonly type: "agent-start";
      readonly agentId: string;
      readonly taskSlice: string;
    })
  /** A free-text line an agent says about what it is doing ("Reading shared context before starting…"). */
  | (EventBase & {
      readonly type: "agent-log";
      readonly agentId: string;
      readonly text: string;
      /** Set when the line announces a Coder's plan: the modules it will build, in order. */
      readonly plan?: readonly string[];
      /**
       * Set when the line reports a dispute still open at the review (agents decided `target`
       * differently and nobody settled it). Not a collision: no work was wasted on it.
       */
      readonly openDispute?: {
        readonly target: string;
        readonly contenders: readonly { agentId: string; value: string }[];
      };
    })
  /**
   * What the agent read before acting: the shared context (`beforeActing`) or its inbox (message
   * modes). `memoryIds` is empty for an inbox.
   */
  | (EventBase & {
      readonly type: "context-read";
      readonly agentId: string;
      readonly task: string;
      readonly memoryIds: readonly string[];
      /** One line per decision the agent now knows about. */
      readonly decisions: readonly string[];
      /** The ids (`decision-write`'s `decisionId`) of those decisions: what the referee says it read. */
      readonly decisionIds?: readonly string[];
      readonly disputes: readonly string[];
      /** How much it had to read, in tokens (about 4 characters each). */
      readonly tokens?: number;
      /**
       * Decisions of the run this read did not deliver (superseded ones and, past the ranking's
       * bound, those on other work): a read says what it left out. @default 0
       */
      readonly decisionsLeftOut?: number;
      /**
       * Where it read: the shared context, its inbox (message modes), a message a listener pushed
       * into running work (`interrupt`), or the shared context re-read to check work in flight
       * (`re-read`). @default "shared context"
       */
      readonly source?: "shared context" | "inbox" | "interrupt" | "re-read";
    })
  /** Message modes: a message on the bus. */
  | (EventBase & {
      readonly type: "message-send";
      readonly from: string;
      readonly to: string;
      readonly content: string;
    })
  /** An agent published a decision (statewave: an episode compiled into a memory; naive: a message). */
  | (EventBase & {
      readonly type: "decision-write";
      readonly agentId: string;
      readonly kind: string;
      /** What it is about, e.g. a module name. */
      readonly target: string;
      /** e.g. "deprecate", "keep", "replace". */
      readonly value: string;
      readonly content: string;
      /** Unique in the run (`planner#1`): reads name the decisions they delivered by it. */
      readonly decisionId?: string;
      /** `value: replace`: the module the planned work moves to. */
      readonly replacement?: string;
      /** How it was established, when not the default (`agent`): `user` for a person's. */
      readonly authority?: Authority;
    })
  | (EventBase & {
      readonly type: "module-claim";
      readonly agentId: string;
      readonly module: string;
    })
  | (EventBase & {
      readonly type: "module-start";
      readonly agentId: string;
      readonly module: string;
      readonly estimatedMs: number;
    })
  | (EventBase & {
      readonly type: "module-end";
      readonly agentId: string;
      readonly module: string;
      readonly tokens: number;
      readonly ms: number;
    })
  | (EventBase & {
      readonly type: "module-skip";
      readonly agentId: string;
      readonly module: string;
      readonly reason: string;
      /** The agent whose decision caused the skip. */
      readonly causedBy: string | null;
      /** The mechanism that avoided the conflict (null: a skip that avoided nothing). */
      readonly mechanism?: Mechanism | null;
    })
  /** Work in flight stopped because a decision it depended on changed. */
  | (EventBase & {
      readonly type: "module-cancel";
      readonly agentId: string;
      readonly module: string;
      readonly reason: string;
      readonly causedBy: string | null;
      readonly tokensSpent: number;
      readonly msSpent: number;
      /** The mechanism that stopped it (always `mid-build invalidation` today). */
      readonly mechanism?: Mechanism;
    })
  /**
   * Work in flight paused (not cut short): a decision contradicting it was made without seeing
   * the one it was built on, so the two stand in dispute. The build keeps its progress and waits
   * for the ruling: `module-resume` picks it up where it stopped, `module-cancel` stops it.
   */
  | (EventBase & {
      readonly type: "module-hold";
      readonly agentId: string;
      readonly module: string;
      readonly reason: string;
      /** The agent whose decision put the work on hold. */
      readonly causedBy: string | null;
      /** How far the build had got, in scenario ms (kept: the build resumes from there). */
      readonly msDone: number;
      /** The mechanism that held it (`dispute surfaced`). */
      readonly mechanism?: Mechanism;
    })
  /** Held work picked up where it stopped: the ruling keeps the module. */
  | (EventBase & {
      readonly type: "module-resume";
      readonly agentId: string;
      readonly module: string;
      readonly reason: string;
      /** What is left of the build, in scenario ms. */
      readonly remainingMs: number;
    })
  | (EventBase & {
      readonly type: "escalation";
      readonly escalationId: string;
      readonly namespace: string;
      readonly key: string;
      readonly contenders: readonly { agentId: string; value: string }[];
    })
  | (EventBase & {
      readonly type: "escalation-resolve";
      readonly escalationId: string;
      readonly by: string;
      readonly value: string;
    })
  /** Found after the fact (naive: by the Reviewer): work that contradicts a decision. */
  | (EventBase & {
      readonly type: "collision";
      readonly module: string;
      readonly detectedBy: string;
      readonly agents: readonly string[];
      readonly description: string;
      readonly wastedTokens: number;
      readonly wastedMs: number;
      /** The mechanism that would have prevented it, which this mode lacked. */
      readonly cause?: CollisionCause;
    })
  /**
   * The agent crashed and started again (a scenario `restart` step): everything it held in memory
   * is gone; from here it reads as a joiner would.
   */
  | (EventBase & { readonly type: "agent-restart"; readonly agentId: string })
  /**
   * The coordination itself restarted (a `restart: coordinator` step): `lost` says what the mode
   * kept only in memory and lost (nothing, for a durable store).
   */
  | (EventBase & { readonly type: "coordinator-restart"; readonly lost: string })
  | (EventBase & { readonly type: "agent-end"; readonly agentId: string })
  | (EventBase & { readonly type: "run-end"; readonly summary: RunSummary });

/** The event tags: `"run-start"`, `"agent-log"`, `"module-cancel"`, … */
export type ScenarioEventType = ScenarioEvent["type"];
