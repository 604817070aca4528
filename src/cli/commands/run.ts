import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { FatalError } from "../fatal-error.js";

/** `shared-ctx run` (being built). */
export function makeRunCommand(_deps: CliDeps): Command {
  return new Command("run").description("(being built)").action(() => {
    throw new FatalError("`run` is not built yet");
  });
}
