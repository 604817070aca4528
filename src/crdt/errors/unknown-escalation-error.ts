import { SharedCtxError } from "../../errors.js";

/** `resolve` was given an escalation id this replica does not know. */
export class UnknownEscalationError extends SharedCtxError {
  override readonly name: string = "UnknownEscalationError";
  readonly escalationId: string;
  /** The ids this replica knows, to help spot a typo. */
  readonly known: string[];

  constructor(escalationId: string, known: string[]) {
    super(
      `No escalation ${escalationId} on this replica${known.length > 0 ? ` (known: ${known.join(", ")})` : ""}`,
    );
    this.escalationId = escalationId;
    this.known = known;
  }
}
