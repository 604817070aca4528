import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { FatalError } from "../fatal-error.js";

/** `shared-ctx mcp` (being built). */
export function makeMcpCommand(_deps: CliDeps): Command {
  return new Command("mcp").description("(being built)").action(() => {
    throw new FatalError("`mcp` is not built yet");
  });
}
