import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { FatalError } from "../fatal-error.js";

/** `shared-ctx bench store` (being built). */
export function makeBenchStoreCommand(_deps: CliDeps): Command {
  return new Command("store").description("(being built)").action(() => {
    throw new FatalError("`bench store` is not built yet");
  });
}
