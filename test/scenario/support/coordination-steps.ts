import type { BuildResult } from "../../../src/coordination/knowledge.js";
import type { PlannedDecision } from "../../../src/coordination/scenario-schema.js";

/**
 * The steps the pipeline tests drive a coordination with, one line each: a test publishes several
 * decisions and results before the one it asserts, and spelt out they hid what the test is about.
 */

/** A planner's decision: the module, its fate and the sentence announcing it. */
export function decision(
  target: string,
  value: PlannedDecision["value"],
  content: string,
): PlannedDecision {
  return { target, value, content };
}

/** One module as `agentId` reports building it, at a cost in tokens and milliseconds. */
export function built(
  agentId: string,
  module: string,
  cost: { readonly tokens: number; readonly ms: number },
): BuildResult {
  return { module, agentId, tokens: cost.tokens, ms: cost.ms };
}
