import { SharedCtxError } from "../../errors.js";

/** No compile job with this id exists for the caller's tenant. The server maps it to 404. */
export class CompileJobNotFoundError extends SharedCtxError {
  override readonly name: string = "CompileJobNotFoundError";
  readonly jobId: string;

  constructor(jobId: string) {
    super(`Compile job not found: ${jobId}`);
    this.jobId = jobId;
  }
}
