import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { UsageError } from "../fatal-error.js";

interface BenchMergeFlags {
  json?: boolean;
  agents?: string;
  writes?: string;
}

/**
 * `shared-ctx bench merge`: AgentSync's three-way harness (lww, transactional, crdt) over the
 * clean_merge, semantic_conflict, type_mismatch and many_agents workloads. Prints one table, or
 * with `--json` the rows as an array of objects keyed by the column names.
 */
export function makeBenchMergeCommand(deps: CliDeps): Command {
  return new Command("merge")
    .description(
      "compare merge strategies (lww, transactional, crdt) on concurrent agent writes: writes lost, escalations, model calls, latency",
    )
    .option("--json", "print the rows as a JSON array")
    .option("--agents <list>", "agent counts of the many_agents workload", "2,8,64")
    .option("--writes <n>", "writes per agent in many_agents", "100")
    .action(async (flags: BenchMergeFlags) => {
      const agentCounts = (flags.agents ?? "2,8,64").split(",").map((item) => Number(item.trim()));
      const writesPerAgent = Number(flags.writes ?? "100");
      if (agentCounts.some((count) => !Number.isInteger(count) || count < 1)) {
        throw new UsageError("--agents must be a comma-separated list of positive integers");
      }
      if (!Number.isInteger(writesPerAgent) || writesPerAgent < 1) {
        throw new UsageError("--writes must be a positive integer");
      }
      const { formatMergeBenchTable, runMergeBench } = await import("../../bench/merge-bench.js");
      const result = runMergeBench({ agentCounts, writesPerAgent });
      deps.stdout.write(
        flags.json ? `${JSON.stringify(result.rows, null, 2)}\n` : formatMergeBenchTable(result),
      );
    });
}
