import type { RunAblation, UnstampedEvent } from "../agents/agent-runtime.js";
import type { ContextStore } from "../context/context-store.js";
import { MessageBus } from "../context/message-bus.js";
import type { Coordination } from "../coordination/coordination.js";
import type { Clock } from "./clock.js";
import type { CostMeter } from "./cost/cost-meter.js";
import { createGroupChatCoordination } from "./pipelines/group-chat-pipeline.js";
import { createMessageCoordination } from "./pipelines/message-pipeline.js";
import type { RunMode } from "./scenario-events.js";
import type { Scenario } from "./scenario-schema.js";

/** What every mode's coordination layer is built from. */
export interface OpenCoordinationOptions {
  mode: RunMode;
  store: ContextStore;
  runId: string;
  scenario: Scenario;
  emit(event: UnstampedEvent): void;
  clock: Clock;
  /** Scenario milliseconds since the run started. */
  now(): number;
  ablation?: RunAblation;
  /**
   * Where every mode's deliveries and store requests are charged (the one cost rule): each
   * mode's bus and store are handed out through it. @default not metered
   */
  meter?: CostMeter;
}

/** A bus whose every delivery is charged by the meter. */
function meteredBus(meter: CostMeter | undefined): MessageBus {
  const bus = new MessageBus();
  if (meter) bus.onMessage(meter.chargeMessage);
  return bus;
}

/** The one thing that differs between modes: the coordination layer the agents call. */
export async function openCoordination(options: OpenCoordinationOptions): Promise<Coordination> {
  const { mode, scenario, emit, now, meter, store } = options;
  const ablation = options.ablation ? { ablation: options.ablation } : {};
  if (mode === "statewave") {
    // Loaded on demand: only this pipeline needs the CRDT (loro-crdt's WebAssembly).
    const pipeline = await import("./pipelines/statewave-pipeline.js");
    return pipeline.createStatewaveCoordination({
      store: meter ? meter.storeFor(store, null) : store,
      ...(meter ? { storeFor: (agentId: string) => meter.storeFor(store, agentId) } : {}),
      subjectId: options.runId,
      scenario,
      emit,
      clock: options.clock,
      now,
      ...ablation,
    });
  }
  if (mode === "group-chat") {
    return createGroupChatCoordination({
      bus: meteredBus(meter),
      emit,
      now,
      dependsOn: new Map(Object.entries(scenario.dependsOn)),
      roles: new Map(scenario.agents.map((agent) => [agent.id, agent.role])),
      ...ablation,
    });
  }
  return createMessageCoordination({
    policy: mode,
    bus: meteredBus(meter),
    emit,
    now,
    reviewerIds: scenario.agents
      .filter((agent) => agent.role === "reviewer")
      .map((agent) => agent.id),
  });
}
