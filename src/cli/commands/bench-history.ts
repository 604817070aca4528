import { Command, InvalidArgumentError } from "commander";
import { type HistoryBackend, historyBackends } from "../../bench/history-bench-table.js";
import type { CliDeps } from "../cli-deps.js";
import { inScratchFolder, progressOnStderr, wholeNumberWithin } from "./bench-helpers.js";

interface BenchHistoryFlags {
  json?: boolean;
  sizes: number[];
  backends: HistoryBackend[];
  databaseUrl?: string;
  repeats: number;
}

/** `--sizes 10,1000,50000`: whole numbers of decisions, 1..1,000,000, at least one. */
export function parseSizes(raw: string): number[] {
  const sizes = raw.split(",").map((part) => Number(part.trim()));
  if (sizes.some((size) => !Number.isInteger(size) || size < 1 || size > 1_000_000)) {
    throw new InvalidArgumentError("expected whole numbers 1..1000000, comma-separated");
  }
  return sizes;
}

/** `--backends embedded,serve`: names from {@link historyBackends}. */
export function parseBackends(raw: string): HistoryBackend[] {
  const names = raw.split(",").map((part) => part.trim());
  const known: readonly string[] = historyBackends;
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new InvalidArgumentError(
      `unknown backend ${unknown.map((name) => JSON.stringify(name)).join(", ")} (expected ${historyBackends.join(", ")})`,
    );
  }
  return names as HistoryBackend[];
}

/**
 * `shared-ctx bench history`: per subject size and backend, what reading before acting, retracting
 * by id, paging and watching cost, with issue 36's goals MET or MISSED. Progress goes to stderr.
 */
export function makeBenchHistoryCommand(deps: CliDeps): Command {
  return new Command("history")
    .description(
      "measure check, beforeActing, retract/history by id, a timeline page, watch --once and the RSS of timeline/watch as a subject grows (10 … 50,000 decisions)",
    )
    .option("--json", "print the figures as one JSON document")
    .option("--sizes <list>", "decisions per subject, comma-separated", parseSizes, [10, 1000])
    .option(
      "--backends <list>",
      `which stores, comma-separated (${historyBackends.join(", ")}; postgres needs --database-url)`,
      parseBackends,
      ["embedded", "serve"],
    )
    .option(
      "--database-url <url>",
      "the Postgres database for the postgres backend (writes, then deletes, bench-history-* subjects)",
    )
    .option(
      "--repeats <n>",
      "samples per figure, the median reported (child processes: once from 10,000 decisions on)",
      wholeNumberWithin(1, 50),
      3,
    )
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        "  $ shared-ctx bench history --sizes 10,1000,10000,50000",
        "  $ shared-ctx bench history --backends postgres --database-url postgres://localhost/bench",
      ].join("\n"),
    )
    .action(async (flags: BenchHistoryFlags) => {
      const [{ runHistoryBench }, { formatHistoryBenchTable }] = await Promise.all([
        import("../../bench/history-bench.js"),
        import("../../bench/history-bench-table.js"),
      ]);
      const backends =
        flags.databaseUrl !== undefined && !flags.backends.includes("postgres")
          ? [...flags.backends, "postgres" as const]
          : flags.backends;
      await inScratchFolder("shared-ctx-history-", async (dir) => {
        const result = await runHistoryBench({
          dir,
          sizes: flags.sizes,
          backends,
          ...(flags.databaseUrl !== undefined ? { databaseUrl: flags.databaseUrl } : {}),
          repeats: flags.repeats,
          onProgress: progressOnStderr(deps),
        });
        deps.stdout.write(
          flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatHistoryBenchTable(result),
        );
      });
    });
}
