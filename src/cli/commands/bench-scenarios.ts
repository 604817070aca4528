import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { UsageError } from "../fatal-error.js";

interface BenchScenariosFlags {
  seeds: string;
  json?: boolean;
  scenario?: string[];
}

/**
 * `shared-ctx bench scenarios`: every shipped scenario in every mode over N seeds: collision rate,
 * wasted tokens (mean and max), what agents had to read, and the mechanism behind each avoided
 * conflict and each collision; then shared context against broadcast, ties included.
 */
export function makeBenchScenariosCommand(deps: CliDeps): Command {
  return new Command("scenarios")
    .description(
      "every scenario × every mode (naive, broadcast, statewave) × N seeds: collisions, waste, tokens read, mechanisms",
    )
    .option("--seeds <n>", "seeds 1..N per scenario and mode", "20")
    .option("--scenario <name...>", "only these scenarios (default: every shipped one)")
    .option("--json", "print rows and verdicts as JSON")
    .action(async (flags: BenchScenariosFlags) => {
      const seeds = Number(flags.seeds);
      if (!Number.isInteger(seeds) || seeds < 1) {
        throw new UsageError("--seeds must be a positive integer");
      }
      const [{ listScenarios, loadScenario }, { EmbeddedStore }, bench] = await Promise.all([
        import("../../scenario/load-scenario.js"),
        import("../../context/embedded/embedded-store.js"),
        import("../../bench/scenarios-bench.js"),
      ]);
      const names = flags.scenario ?? (await listScenarios()).map((listed) => listed.name);
      const scenarios = await Promise.all(
        names.map((name) => loadScenario(name, { cwd: deps.cwd })),
      );
      const result = await bench.runScenarioBench({
        scenarios,
        seeds,
        // A fresh in-memory store per run: runs never see each other.
        openStore: () => new EmbeddedStore({ path: ":memory:" }),
        onProgress: (message) => deps.stderr.write(`… ${message}\n`),
      });
      deps.stdout.write(
        flags.json
          ? `${JSON.stringify({ seeds, ...result }, null, 2)}\n`
          : bench.formatScenarioBench(result, seeds),
      );
    });
}
