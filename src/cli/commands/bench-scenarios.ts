import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { UsageError } from "../fatal-error.js";
import { progressOnStderr } from "./bench-helpers.js";

interface BenchScenariosFlags {
  seeds: string;
  json?: boolean;
  scenario?: string[];
  teamSize?: string;
  history?: string;
  sweepScenario: string;
}

/** "5,10,20" -> [5, 10, 20]; a usage error names the flag. */
function parseSizes(raw: string, flag: string, most: number): number[] {
  const sizes = raw.split(",").map((part) => Number(part.trim()));
  if (
    sizes.length === 0 ||
    sizes.some((size) => !Number.isInteger(size) || size < 1 || size > most)
  ) {
    throw new UsageError(
      `${flag} takes whole numbers 1..${most} separated by commas (got "${raw}")`,
    );
  }
  return sizes;
}

/**
 * `shared-ctx bench scenarios`: every shipped scenario in every mode over N seeds, each run judged
 * by the referee: verdicts, waste, dropped work, stale actions, messages sent, what agents had to
 * read, and the mechanism behind each avoided conflict and each collision; then shared context
 * against group-chat and broadcast, ties included. `--team-size 5,10,20` adds a sweep.
 */
export function makeBenchScenariosCommand(deps: CliDeps): Command {
  return new Command("scenarios")
    .description(
      "every scenario × every mode (naive, broadcast, group-chat, statewave) × N seeds, judged by the referee: verdicts, waste, messages, tokens read, mechanisms",
    )
    .option("--seeds <n>", "seeds 1..N per scenario and mode", "20")
    .option("--scenario <name...>", "only these scenarios (default: every shipped one)")
    .option("--json", "print rows and verdicts as JSON")
    .option(
      "--team-size <n,...>",
      "also sweep the team: the sweep scenario with this many coders (e.g. 5,10,20,50)",
    )
    .option("--sweep-scenario <name>", "the scenario the team-size sweep scales", "many-agents")
    .option(
      "--history <n,...>",
      "also sweep the history: this many decisions before a Coder joins (e.g. 8,25,100,250)",
    )
    .action(async (flags: BenchScenariosFlags) => {
      const seeds = Number(flags.seeds);
      if (!Number.isInteger(seeds) || seeds < 1) {
        throw new UsageError("--seeds must be a positive integer");
      }
      const sizes =
        flags.teamSize === undefined ? [] : parseSizes(flags.teamSize, "--team-size", 200);
      const histories =
        flags.history === undefined ? [] : parseSizes(flags.history, "--history", 1000);
      const [{ listScenarios, loadScenario }, { EmbeddedStore }, bench, format] = await Promise.all(
        [
          import("../../scenario/load-scenario.js"),
          import("../../context/embedded/embedded-store.js"),
          import("../../bench/scenarios-bench.js"),
          import("../../bench/format-scenario-bench.js"),
        ],
      );
      const names = flags.scenario ?? (await listScenarios()).map((listed) => listed.name);
      const scenarios = await Promise.all(
        names.map((name) => loadScenario(name, { cwd: deps.cwd })),
      );
      const common = {
        seeds,
        // A fresh in-memory store per run: runs never see each other.
        openStore: () => new EmbeddedStore({ path: ":memory:" }),
        onProgress: progressOnStderr(deps),
      };
      const result = await bench.runScenarioBench({ ...common, scenarios });
      const sweep =
        sizes.length === 0
          ? []
          : await bench.runTeamSizeSweep({
              ...common,
              scenario: await loadScenario(flags.sweepScenario, { cwd: deps.cwd }),
              sizes,
            });
      const history =
        histories.length === 0 ? [] : await bench.runHistorySweep({ ...common, histories });
      if (flags.json) {
        const document = { seeds, ...result, teamSizes: sweep, histories: history };
        deps.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
        return;
      }
      deps.stdout.write(format.formatScenarioBench(result, seeds));
      if (sweep.length > 0) deps.stdout.write(`\n${format.formatTeamSizeSweep(sweep, seeds)}`);
      if (history.length > 0) deps.stdout.write(`\n${format.formatHistorySweep(history, seeds)}`);
    });
}
