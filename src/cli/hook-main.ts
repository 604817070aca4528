import { reportError, reportStop } from "./error-report.js";
import { ExitCode, type ExitCodeValue } from "./exit-codes.js";
import { parseFastCommand } from "./fast-path.js";
import { withProcess } from "./process-deps.js";
import { runCheck } from "./run-check.js";
import { runHook } from "./run-hook.js";

/**
 * The edit hooks' fast path (issue 31): Claude Code runs `shared-ctx hook pre-tool-use` before
 * every edit, so its start-up is the edit's latency. bin/shared-ctx.js loads this module, bundled
 * on its own by scripts/bundle-cli.mjs with only the hook's code (the store, the edit policy),
 * instead of main.js, which builds commander's whole command table first. A command line it does
 * not recognise (`--help`, a usage error) returns undefined, and the bin runs the full CLI, which
 * prints help and errors as always.
 * @returns the exit code, or undefined when the full CLI must handle `argv`
 */
export async function hookMain(argv: readonly string[]): Promise<ExitCodeValue | undefined> {
  const command = parseFastCommand(argv);
  if (command === undefined) return undefined;
  return withProcess(async (deps) => {
    try {
      if (command.command === "hook") await runHook(command.name, command.options, deps);
      else await runCheck(command.options, deps);
      return ExitCode.ok;
    } catch (error) {
      return reportStop(deps) ?? reportError(error, deps);
    }
  });
}
