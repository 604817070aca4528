import type { Authority } from "../context/authority.js";

/**
 * What agents know of each other's work, in the words both the agents and the coordination layer
 * use: decisions, disputes and finished builds.
 */

/** A decision as an agent knows it (from a memory, a message or the shared state). */
export interface KnownDecision {
  target: string;
  /** "deprecate" | "keep" (other values are passed through from models). */
  value: string;
  /** The agent that decided it. */
  by: string;
  content: string;
  /** When it was published, in scenario milliseconds (unknown for decisions from outside a run). */
  at?: number;
  /** The run's id for it (`decision-write`'s `decisionId`), when it came from this run. */
  id?: string;
  /** `value: replace`: the module the planned work moves to. */
  replacement?: string;
  /** How it was established, when known and not the default (`agent`). */
  authority?: Authority;
}

/** A field two agents set to different values, escalated and not resolved yet. */
export interface KnownDispute {
  /** The module (or key) in dispute. */
  target: string;
  contenders: Array<{ agentId: string; value: string }>;
}

/** One module as built by one agent. */
export interface BuildResult {
  module: string;
  agentId: string;
  tokens: number;
  ms: number;
}
