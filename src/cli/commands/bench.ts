import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { makeBenchMergeCommand } from "./bench-merge.js";
import { makeBenchStoreCommand } from "./bench-store.js";

/** `shared-ctx bench store|merge`: benchmarks that print measured figures (never run in tests). */
export function makeBenchCommand(deps: CliDeps): Command {
  return new Command("bench")
    .description("measure the store and the merge strategies on this machine")
    .addCommand(makeBenchStoreCommand(deps))
    .addCommand(makeBenchMergeCommand(deps));
}
