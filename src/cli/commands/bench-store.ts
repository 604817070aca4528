import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { UsageError } from "../fatal-error.js";
import { inScratchFolder, progressOnStderr } from "./bench-helpers.js";

interface BenchStoreFlags {
  json?: boolean;
  skipServe?: boolean;
  quick?: boolean;
  serveSeconds?: string;
  databaseUrl?: string;
}

/**
 * `shared-ctx bench store`: one run, one table (or one JSON document with `--json`). Progress
 * goes to stderr so stdout stays clean. The data lives in a temporary folder, removed afterwards.
 */
export function makeBenchStoreCommand(deps: CliDeps): Command {
  return new Command("store")
    .description(
      "measure the embedded store: ingest vs raw SQLite, getContext at 1k/10k/100k episodes, getTimeline, serve over HTTP",
    )
    .option("--json", "print the figures as one JSON document")
    .option("--skip-serve", "leave out the HTTP (serve) figures")
    .option("--quick", "smaller sizes (1k, 10k) for a fast look")
    .option(
      "--serve-seconds <n>",
      "how long each serve ingest run lasts (8 clients in another process, then autocannon)",
      "8",
    )
    .option(
      "--database-url <url>",
      "measure the Postgres store on this database instead: ingest through 1-3 serve replicas, getContext at 10k/100k, beside the embedded store (writes and then deletes bench-* subjects)",
    )
    .action(async (flags: BenchStoreFlags) => {
      const serveSeconds = Number(flags.serveSeconds ?? "8");
      if (!Number.isFinite(serveSeconds) || serveSeconds <= 0) {
        throw new UsageError("--serve-seconds must be a positive number");
      }
      await inScratchFolder("shared-ctx-bench-", async (dir) => {
        if (flags.databaseUrl !== undefined) {
          const { formatPostgresBenchTable, runPostgresBench } = await import(
            "../../bench/postgres-bench.js"
          );
          const result = await runPostgresBench({
            databaseUrl: flags.databaseUrl,
            dir,
            ...(flags.quick ? { sizes: [1000, 10_000], ingestSeconds: 3 } : {}),
            onProgress: progressOnStderr(deps),
          });
          deps.stdout.write(
            flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatPostgresBenchTable(result),
          );
          return;
        }
        const [{ runStoreBench }, { formatStoreBenchTable }] = await Promise.all([
          import("../../bench/store-bench.js"),
          import("../../bench/store-bench-table.js"),
        ]);
        const result = await runStoreBench({
          dir,
          sizes: flags.quick ? [1000, 10_000] : undefined,
          skipServe: flags.skipServe,
          serveSeconds,
          onProgress: progressOnStderr(deps),
        });
        deps.stdout.write(
          flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatStoreBenchTable(result),
        );
      });
    });
}
