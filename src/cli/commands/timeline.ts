import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { FatalError } from "../fatal-error.js";

/** `shared-ctx timeline` (being built). */
export function makeTimelineCommand(_deps: CliDeps): Command {
  return new Command("timeline").description("(being built)").action(() => {
    throw new FatalError("`timeline` is not built yet");
  });
}
