import { resolve } from "node:path";
import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { FatalError } from "../fatal-error.js";
import { inScratchFolder, progressOnStderr, wholeNumberWithin } from "./bench-helpers.js";

interface BenchStartupFlags {
  json?: boolean;
  repeats: number;
  bin?: string;
}

/**
 * `shared-ctx bench startup`: how fast the built bin starts, each figure against `node -e 0` in
 * the same run, with MET/MISSED per target and the machine load. Progress goes to stderr. Exits 1
 * when a figure could not be measured (the command failed), never for a slow one.
 */
export function makeBenchStartupCommand(deps: CliDeps): Command {
  return new Command("startup")
    .description(
      "measure start-up of the built bin: --help and runs CPU vs node -e 0, the demo's first frame, mcp initialize, the edit hook (hook pre-tool-use)",
    )
    .option("--json", "print the figures as one JSON document")
    .option(
      "--repeats <n>",
      "runs per figure (the median is reported)",
      wholeNumberWithin(1, 100),
      5,
    )
    .option("--bin <path>", "measure another build's bin/shared-ctx.js (a before/after comparison)")
    .action(async (flags: BenchStartupFlags) => {
      const [{ runStartupBench }, { formatStartupBenchTable }] = await Promise.all([
        import("../../bench/startup-bench.js"),
        import("../../bench/startup-bench-table.js"),
      ]);
      await inScratchFolder("shared-ctx-startup-", async (dir) => {
        const result = await runStartupBench({
          dir,
          repeats: flags.repeats,
          ...(flags.bin !== undefined ? { binPath: resolve(deps.cwd, flags.bin) } : {}),
          onProgress: progressOnStderr(deps),
        });
        deps.stdout.write(
          flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatStartupBenchTable(result),
        );
        // A slow figure is a finding (MISSED); one that could not be measured is a broken command.
        const broken = result.figures.filter((figure) => figure.error !== undefined);
        if (broken.length > 0) {
          throw new FatalError(
            `could not measure ${broken.map((figure) => `${figure.name} (${figure.error})`).join(", ")}`,
          );
        }
      });
    });
}
