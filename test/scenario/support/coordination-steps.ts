import type { UnstampedEvent } from "../../../src/agents/agent-runtime.js";
import { MessageBus } from "../../../src/context/message-bus.js";
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

/**
 * What a bus-backed coordination stands on in a test: the bus, the events it emits (kept to
 * assert on) and a clock that reads `time` until the test moves it with `at(ms)`.
 */
export function busFloor() {
  const bus = new MessageBus();
  const events: UnstampedEvent[] = [];
  let time = 0;
  return {
    bus,
    events,
    emit: (event: UnstampedEvent) => {
      events.push(event);
    },
    now: () => time,
    at: (ms: number) => {
      time = ms;
    },
  };
}
