import { isPlainObject } from "./json-value.js";

/** One side of a dispute: who wrote what, when. */
export interface Contender {
  agentId: string;
  value: unknown;
  /** Milliseconds since the epoch, from the writer's clock. */
  at: number;
}

/**
 * What reading a disputed field returns: the values still standing, instead of silently picking
 * one. An agent can act on it (show both, pick one and `resolve`), and `instanceof Disputed`
 * tells it apart from any value a field can hold.
 */
export class Disputed {
  /** The escalation to pass to `SharedState.resolve`. */
  readonly escalationId: string;
  /** The competing values, in the same order on every replica. */
  readonly contenders: readonly Contender[];

  constructor(escalationId: string, contenders: readonly Contender[]) {
    this.escalationId = escalationId;
    this.contenders = contenders;
  }

  /** How a dispute appears in `SharedState.toJSON()`. */
  toJSON(): { disputed: string; contenders: Contender[] } {
    return { disputed: this.escalationId, contenders: [...this.contenders] };
  }
}

/** A deep copy that keeps `Disputed` instances (callers must not be able to change a cached view). */
export function cloneValue(value: unknown): unknown {
  if (value instanceof Disputed) return value;
  if (Array.isArray(value)) return value.map(cloneValue);
  if (isPlainObject(value)) {
    // fromEntries defines own properties: a `__proto__` key stays a key.
    return Object.fromEntries(
      Object.entries(value).map(([name, child]) => [name, cloneValue(child)]),
    );
  }
  return value;
}
