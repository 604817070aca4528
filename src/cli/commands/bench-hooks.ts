import { resolve } from "node:path";
import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { inScratchFolder, progressOnStderr } from "./bench-helpers.js";

/**
 * `shared-ctx bench hooks`: command hooks against HTTP hooks through `serve`, for 1 session and 32
 * at once, in the same run, with MET/MISSED for issue 38's goals. Progress goes to stderr.
 */
export function makeBenchHooksCommand(deps: CliDeps): Command {
  return new Command("hooks")
    .description(
      "measure the edit hook per call: command hooks (a process each) against HTTP hooks (shared-ctx serve), 1 and 32 sessions at once",
    )
    .option("--json", "print the figures as one JSON document")
    .option("--quick", "fewer calls (a smoke run, not the figures)")
    .option("--bin <path>", "the built bin/shared-ctx.js to measure (default: this one)")
    .action(async (flags: { json?: boolean; quick?: boolean; bin?: string }) => {
      const { runHooksBench, formatHooksBenchTable } = await import("../../bench/hooks-bench.js");
      await inScratchFolder("shared-ctx-hooks-bench-", async (dir) => {
        const result = await runHooksBench({
          dir,
          ...(flags.bin !== undefined ? { binPath: resolve(deps.cwd, flags.bin) } : {}),
          ...(flags.quick ? { quick: true } : {}),
          onProgress: progressOnStderr(deps),
        });
        deps.stdout.write(
          flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatHooksBenchTable(result),
        );
      });
    });
}
