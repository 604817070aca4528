import type { UnstampedEvent } from "../../agents/agent-runtime.js";
import type { ContextStore } from "../../context/context-store.js";
import type { Clock } from "../clock.js";
import type { Scenario } from "../scenario-schema.js";
import type { Coordination } from "./coordination.js";

export interface StatewaveCoordinationOptions {
  store: ContextStore;
  subjectId: string;
  scenario: Scenario;
  emit(event: UnstampedEvent): void;
  clock: Clock;
}

export async function createStatewaveCoordination(_options: StatewaveCoordinationOptions): Promise<Coordination> {
  throw new Error("not yet");
}
