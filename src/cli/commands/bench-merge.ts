import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { FatalError } from "../fatal-error.js";

/** `shared-ctx bench merge` (being built). */
export function makeBenchMergeCommand(_deps: CliDeps): Command {
  return new Command("merge").description("(being built)").action(() => {
    throw new FatalError("`bench merge` is not built yet");
  });
}
