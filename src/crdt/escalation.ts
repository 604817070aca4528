import type { Contender } from "./disputed.js";

/**
 * Why a field needs a decision:
 * - `concurrent-register`: agents wrote different values to a register (or a map leaf) without
 *   having seen each other's write;
 * - `kind-mismatch`: agents wrote values of different kinds to one field (a list and a string),
 *   the case AgentSync drops silently.
 */
export type EscalationReason = "concurrent-register" | "kind-mismatch";

/** A genuine conflict, raised once, kept until someone resolves it. */
export interface Escalation {
  /** Deterministic: the same on every replica (`<namespace>/<key>[.<leaf>]#<generation>[:kind]`, each name escaped). */
  id: string;
  subjectId: string;
  namespace: string;
  /** The field key; for a leaf of a map field, `key.path.to.leaf`. */
  key: string;
  reason: EscalationReason;
  /** Every write in the dispute, in the same order on every replica. */
  contenders: Contender[];
  /** The latest contender's time (ms epoch). */
  raisedAt: number;
  resolution?: { value: unknown; by: string; at: number };
}
