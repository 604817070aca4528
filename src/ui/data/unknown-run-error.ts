import { SharedCtxError } from "../../errors.js";

/** A run id the store has no events for. The message lists the most recent run ids instead. */
export class UnknownRunError extends SharedCtxError {
  override readonly name: string = "UnknownRunError";
  readonly runId: string;
  /** The most recent run ids in the store, newest first. */
  readonly recentRunIds: readonly string[];

  constructor(options: { runId: string; recentRunIds: readonly string[]; storeName?: string }) {
    const where = options.storeName ? ` in ${options.storeName}` : "";
    const hint =
      options.recentRunIds.length > 0
        ? `Recent runs: ${options.recentRunIds.join(", ")}`
        : "There are no runs yet: start one with `shared-ctx demo` or `shared-ctx run`.";
    const shape = /^(nv|sw)-[0-9a-z]{8}$/.test(options.runId)
      ? ""
      : " (run ids look like nv-1a2b3c4d or sw-1a2b3c4d)";
    super(`no run "${options.runId}"${where}${shape}. ${hint}`);
    this.runId = options.runId;
    this.recentRunIds = options.recentRunIds;
  }
}
