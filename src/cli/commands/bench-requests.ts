import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { inScratchFolder, progressOnStderr } from "./bench-helpers.js";

interface BenchRequestsFlags {
  json?: boolean;
  scenario: string;
}

/**
 * `shared-ctx bench requests`: the requests one `run` sends through the Statewave-backed store,
 * counted by route, against `serve` and against the v0.7.1 emulation. Progress goes to stderr.
 */
export function makeBenchRequestsCommand(deps: CliDeps): Command {
  return new Command("requests")
    .description(
      "count the requests one `run --store statewave` sends, by route, to serve and to the Statewave v0.7.1 emulation",
    )
    .option("--json", "print the counts as one JSON document")
    .option("--scenario <name>", "the scenario the run plays", "auth-jwt")
    .action(async (flags: BenchRequestsFlags) => {
      const [{ runRequestsBench }, { formatRequestsTable }] = await Promise.all([
        import("../../bench/requests-bench.js"),
        import("../../bench/request-count.js"),
      ]);
      await inScratchFolder("shared-ctx-requests-", async (dir) => {
        const result = await runRequestsBench({
          dir,
          scenario: flags.scenario,
          onProgress: progressOnStderr(deps),
        });
        deps.stdout.write(
          flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatRequestsTable(result),
        );
      });
    });
}
