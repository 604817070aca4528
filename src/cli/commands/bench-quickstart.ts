import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Command, InvalidArgumentError } from "commander";
import type { CliDeps } from "../cli-deps.js";

interface BenchQuickstartFlags {
  json?: boolean;
  repeats: number;
  repository?: string;
  installed?: string;
}

function parseRepeats(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 20) {
    throw new InvalidArgumentError("expected a whole number 0..20");
  }
  return value;
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
    .option("--repeats <n>", "starts timed after the first one", parseRepeats, 3)
    .option("--repository <path|url>", "the repository to clone (default: this package's folder)")
    .option(
      "--installed <dir>",
      "time npm run demo in a clone already installed (no clone, no install)",
    )
    .action(async (flags: BenchQuickstartFlags) => {
      const { formatQuickstartBench, packageRoot, runQuickstartBench } = await import(
        "../../bench/quickstart-bench.js"
      );
      const dir = mkdtempSync(join(tmpdir(), "shared-ctx-quickstart-"));
      try {
        const result = await runQuickstartBench({
          repository: flags.repository ? resolve(deps.cwd, flags.repository) : packageRoot,
          dir,
          repeats: flags.repeats,
          ...(flags.installed ? { installed: resolve(deps.cwd, flags.installed) } : {}),
          onProgress: (message) => deps.stderr.write(`… ${message}\n`),
        });
        deps.stdout.write(
          flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatQuickstartBench(result),
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
}
