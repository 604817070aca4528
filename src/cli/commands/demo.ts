import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { FatalError } from "../fatal-error.js";

/** `shared-ctx demo` (being built). */
export function makeDemoCommand(_deps: CliDeps): Command {
  return new Command("demo").description("(being built)").action(() => {
    throw new FatalError("`demo` is not built yet");
  });
}
