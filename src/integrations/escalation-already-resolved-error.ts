import { SharedCtxError } from "../errors.js";

/**
 * A second resolution of an escalation: a resolution is final (the record and the state keep the
 * first), so it is refused, naming the first. To change the value, write it anew.
 */
export class EscalationAlreadyResolvedError extends SharedCtxError {
  override readonly name: string = "EscalationAlreadyResolvedError";
  readonly escalationId: string;
  /** The resolution that stands. */
  readonly resolution: { value: unknown; by: string; at: number };

  constructor(escalationId: string, resolution: { value: unknown; by: string; at: number }) {
    super(
      `${escalationId} was already resolved by ${resolution.by} at ${new Date(resolution.at).toISOString()} with ${JSON.stringify(resolution.value)}; a resolution is final (write the field anew to change it)`,
    );
    this.escalationId = escalationId;
    this.resolution = resolution;
  }
}
