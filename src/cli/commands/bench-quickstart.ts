import { resolve } from "node:path";
import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { inScratchFolder, progressOnStderr, wholeNumberWithin } from "./bench-helpers.js";

interface BenchQuickstartFlags {
  json?: boolean;
  repeats: number;
  repository?: string;
  installed?: string;
}

/**
 * `shared-ctx bench quickstart`: README's two commands on a fresh clone (`npm install`, then
 * `npm run demo`), the demo's first frame timed in a pseudo-terminal. Minutes, not seconds: the
 * install builds the project. Never part of the tests.
 */
export function makeBenchQuickstartCommand(deps: CliDeps): Command {
  return new Command("quickstart")
    .description(
      "clone this repository afresh, npm install, and time npm run demo to its first frame (minutes: the install builds)",
    )
    .option("--json", "print the figures as one JSON document")
    .option("--repeats <n>", "starts timed after the first one", wholeNumberWithin(0, 20), 3)
    .option("--repository <path|url>", "the repository to clone (default: this package's folder)")
    .option(
      "--installed <dir>",
      "time npm run demo in a clone already installed (no clone, no install)",
    )
    .action(async (flags: BenchQuickstartFlags) => {
      const { formatQuickstartBench, packageRoot, runQuickstartBench } = await import(
        "../../bench/quickstart-bench.js"
      );
      await inScratchFolder("shared-ctx-quickstart-", async (dir) => {
        const result = await runQuickstartBench({
          repository: flags.repository ? resolve(deps.cwd, flags.repository) : packageRoot,
          dir,
          repeats: flags.repeats,
          ...(flags.installed ? { installed: resolve(deps.cwd, flags.installed) } : {}),
          onProgress: progressOnStderr(deps),
        });
        deps.stdout.write(
          flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatQuickstartBench(result),
        );
      });
    });
}
