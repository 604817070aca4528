import { SharedCtxError } from "../../errors.js";

/** A write was made to a `SharedState` after `close()`. */
export class SharedStateClosedError extends SharedCtxError {
  override readonly name: string = "SharedStateClosedError";
  readonly subjectId: string;
  readonly agentId: string;

  constructor(subjectId: string, agentId: string) {
    super(`The shared state of ${subjectId} opened by ${agentId} is closed`);
    this.subjectId = subjectId;
    this.agentId = agentId;
  }
}
