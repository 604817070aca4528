/**
 * The one typed event stream a scenario run emits. The Ink UI, the plain output and `--json`
 * all consume exactly these events, so what a user sees is what the run did.
 *
 * Tags are noun-action (`agent-start`, `module-end`). `at` is milliseconds since the run started,
 * measured on the run's injected clock (scaled by `--speed`, so it is "scenario time").
 */

/**
 * How the agents coordinate: `naive` (message passing only; contradictions are found at the
 * review) or `statewave` (the shared context: read before acting, publish decisions, claim modules).
 */
export type RunMode = "naive" | "statewave";
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
  /** Contradictions the shared context prevented before (or while) the work was done. */
  readonly conflictsAvoided: number;
  readonly escalations: number;
  readonly wasted: { readonly modules: number; readonly tokens: number; readonly ms: number };
  readonly totals: { readonly tokens: number; readonly ms: number };
  /** Modules built in vain, by name. */
  readonly wastedModules: readonly string[];
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
      /**
       * Set when the line reports a dispute still open at the review (agents decided `target`
       * differently and nobody settled it). Not a collision: no work was wasted on it.
       */
      readonly openDispute?: {
        readonly target: string;
        readonly contenders: readonly { agentId: string; value: string }[];
      };
    })
  /** Statewave mode: what the agent received from `beforeActing`. */
  | (EventBase & {
      readonly type: "context-read";
      readonly agentId: string;
      readonly task: string;
      readonly memoryIds: readonly string[];
      /** One line per decision the agent now knows about. */
      readonly decisions: readonly string[];
      readonly disputes: readonly string[];
    })
  /** Naive mode: a message on the bus. */
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
      /** e.g. "deprecate", "build", "owner:coder-1". */
      readonly value: string;
      readonly content: string;
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
    })
  | (EventBase & { readonly type: "agent-end"; readonly agentId: string })
  | (EventBase & { readonly type: "run-end"; readonly summary: RunSummary });

/** The event tags: `"run-start"`, `"agent-log"`, `"module-cancel"`, … */
export type ScenarioEventType = ScenarioEvent["type"];
