import type { Escalation } from "./escalation.js";
import type { NamespaceSchema } from "./field-kind.js";

/** Options of a `StateReplica`. */
export interface StateReplicaOptions {
  subjectId: string;
  /** Unique per replica: two replicas with one peer id corrupt each other's history. */
  peerId: bigint | number;
  /** Declared field kinds per namespace; other fields are inferred. */
  schema?: Record<string, NamespaceSchema>;
  /** @default Date.now */
  now?: () => number;
  /**
   * Called with the error of a change or escalation listener that threw. Every listener still
   * runs, and the write or import that called them still completes.
   * @default none: the first listener error is rethrown once every listener has run (the
   * replica's state is already settled by then)
   */
  onError?: (error: unknown) => void;
}

/** A change applied to the replica (a local write or an imported one). */
export interface StateChange {
  namespace: string;
  key: string;
  agentId: string;
  local: boolean;
}

/** An escalation seen by this replica for the first time. */
export interface RaisedEscalation {
  escalation: Escalation;
  /** True when this replica is the one that announces it on the timeline (see docs/crdt.md). */
  announcedHere: boolean;
}
