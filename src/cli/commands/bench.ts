import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { FatalError } from "../fatal-error.js";

/** `shared-ctx bench` (being built). */
export function makeBenchCommand(_deps: CliDeps): Command {
  return new Command("bench").description("(being built)").action(() => {
    throw new FatalError("`bench` is not built yet");
  });
}
