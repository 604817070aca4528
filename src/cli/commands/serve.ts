import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { FatalError } from "../fatal-error.js";

/** `shared-ctx serve` (being built). */
export function makeServeCommand(_deps: CliDeps): Command {
  return new Command("serve").description("(being built)").action(() => {
    throw new FatalError("`serve` is not built yet");
  });
}
