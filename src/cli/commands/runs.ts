import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { FatalError } from "../fatal-error.js";

/** `shared-ctx runs` (being built). */
export function makeRunsCommand(_deps: CliDeps): Command {
  return new Command("runs").description("(being built)").action(() => {
    throw new FatalError("`runs` is not built yet");
  });
}
