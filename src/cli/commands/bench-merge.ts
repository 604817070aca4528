import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { UsageError } from "../fatal-error.js";
import { progressOnStderr } from "./bench-helpers.js";

interface BenchMergeFlags {
  json?: boolean;
  quick?: boolean;
  agents?: string;
  writes?: string;
}

/** The full run: issue 12's targets are about 64 agents; 256 shows how it scales. */
const defaultAgents = "2,8,64,256";
/** `--quick`: a CI smoke in seconds. The 64x100 targets print as `not run`. */
const quickAgents = "2,8,64";
const quickWrites = "20";

/**
 * `shared-ctx bench merge`: AgentSync's three-way harness (lww, transactional, crdt) over the
 * clean_merge, semantic_conflict, type_mismatch and many_agents workloads. Prints the machine's
 * load, one table and each target with MET/MISSED, or with `--json` the rows as an array of
 * objects keyed by the column names. Progress goes to stderr, so stdout stays clean.
 */
export function makeBenchMergeCommand(deps: CliDeps): Command {
  return new Command("merge")
    .description(
      "compare merge strategies (lww, transactional, crdt) on concurrent agent writes: writes lost, escalations, model calls, latency",
    )
    .option("--json", "print the rows as a JSON array")
    .option("--quick", `a smoke run in seconds (agents ${quickAgents}, ${quickWrites} writes each)`)
    .option(
      "--agents <list>",
      `agent counts of the many_agents workload (default ${defaultAgents})`,
    )
    .option("--writes <n>", "writes per agent in many_agents (default 100)")
    .action(async (flags: BenchMergeFlags) => {
      const agentList = flags.agents ?? (flags.quick ? quickAgents : defaultAgents);
      const agentCounts = agentList.split(",").map((item) => Number(item.trim()));
      const writesPerAgent = Number(flags.writes ?? (flags.quick ? quickWrites : "100"));
      if (agentCounts.some((count) => !Number.isInteger(count) || count < 1)) {
        throw new UsageError("--agents must be a comma-separated list of positive integers");
      }
      if (!Number.isInteger(writesPerAgent) || writesPerAgent < 1) {
        throw new UsageError("--writes must be a positive integer");
      }
      const { formatMergeBenchTable, runMergeBench } = await import("../../bench/merge-bench.js");
      const result = runMergeBench({
        agentCounts,
        writesPerAgent,
        onProgress: progressOnStderr(deps),
      });
      if (flags.json) {
        deps.stderr.write(
          `… load ${result.machine.loadStart} at start, ${result.machine.loadEnd} at end; ${result.targets
            .map((target) => `${target.status} ${target.name}`)
            .join("; ")}\n`,
        );
        deps.stdout.write(`${JSON.stringify(result.rows, null, 2)}\n`);
      } else {
        deps.stdout.write(formatMergeBenchTable(result));
      }
    });
}
