import { SharedCtxError } from "../../errors.js";
import { listSome } from "../format/did-you-mean.js";

/** How many of an ambiguous prefix's runs the message names (a prefix may match hundreds). */
const namedMatches = 5;

/** A run id the store has no events for. The message lists the most recent run ids instead. */
export class UnknownRunError extends SharedCtxError {
  override readonly name: string = "UnknownRunError";
  readonly runId: string;
  /** The most recent run ids in the store, newest first. */
  readonly recentRunIds: readonly string[];

  /** Set when the id was a prefix of more than one run: those runs. */
  readonly matches: readonly string[];

  constructor(options: {
    runId: string;
    recentRunIds: readonly string[];
    storeName?: string;
    /** The runs an ambiguous prefix matches. */
    matches?: readonly string[];
  }) {
    const where = options.storeName ? ` in ${options.storeName}` : "";
    const matches = options.matches ?? [];
    if (matches.length > 1) {
      super(
        `run id "${options.runId}" is ambiguous${where}: it starts ${listSome(matches.slice(0, namedMatches), matches.length)}. Give more of it.`,
      );
      this.runId = options.runId;
      this.recentRunIds = options.recentRunIds;
      this.matches = matches;
      return;
    }
    const hint =
      options.recentRunIds.length > 0
        ? `Recent runs: ${options.recentRunIds.join(", ")}`
        : "There are no runs yet: start one with `shared-ctx demo` or `shared-ctx run`.";
    const shape = /^(nv|bc|gc|sw)-[0-9a-z]{8}$/.test(options.runId)
      ? ""
      : " (run ids look like sw-1a2b3c4d; a unique prefix or `last` works too)";
    super(`no run "${options.runId}"${where}${shape}. ${hint}`);
    this.runId = options.runId;
    this.recentRunIds = options.recentRunIds;
    this.matches = matches;
  }
}
