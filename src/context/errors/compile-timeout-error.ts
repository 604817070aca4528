import { SharedCtxError } from "../../errors.js";

/** `compileMemoriesWait` gave up before the job completed or failed. */
export class CompileTimeoutError extends SharedCtxError {
  override readonly name: string = "CompileTimeoutError";
  readonly jobId: string;
  readonly timeoutMs: number;

  constructor(jobId: string, timeoutMs: number) {
    super(`Compile job ${jobId} did not finish within ${timeoutMs} ms`);
    this.jobId = jobId;
    this.timeoutMs = timeoutMs;
  }
}
