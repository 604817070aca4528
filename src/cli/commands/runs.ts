import { existsSync } from "node:fs";
import { styleText } from "node:util";
import { Command, InvalidArgumentError } from "commander";
import type { PaintCell } from "../../ui/format/runs-table.js";
import type { CliDeps } from "../cli-deps.js";
import { storeOptions, storeSelection } from "../command-helpers.js";

interface RunsCommandOptions {
  limit: number;
  json?: boolean;
  color: boolean;
  db?: string;
  url?: string;
  databaseUrl?: string;
  store?: "embedded" | "statewave";
}

function parseLimit(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new InvalidArgumentError("expected a whole number > 0");
  return value;
}

/** `shared-ctx runs`: recent runs, newest first. */
export function makeRunsCommand(deps: CliDeps): Command {
  return new Command("runs")
    .description("list recent runs (id, mode, scenario, when, outcome, task), newest first")
    .option("--limit <n>", "at most this many runs", parseLimit, 20)
    .option("--json", "print one JSON document")
    .option("--no-color", "print without colour (NO_COLOR is honoured too)")
    .addOption(storeOptions.kind("the runs"))
    .addOption(storeOptions.db())
    .addOption(storeOptions.url())
    .addOption(storeOptions.databaseUrl())
    .action(async (options: RunsCommandOptions) => {
      // Loaded here, not at the top: the store's driver is this command's alone (start-up cost).
      const [
        { describeStoreLocation, openStore },
        { listRuns },
        { formatRunsTable, runOutcome },
        { createTheme, isColorDisabled },
      ] = await Promise.all([
        import("../../ui/data/open-store.js"),
        import("../../ui/data/read-run.js"),
        import("../../ui/format/runs-table.js"),
        import("../../ui/theme/tokens.js"),
      ]);
      const selection = storeSelection(options, deps);
      const { kind, location } = describeStoreLocation(selection);
      if (kind === "embedded" && location !== ":memory:" && !existsSync(location)) {
        // No store file yet simply means no runs yet (and nothing is created by listing).
        deps.stdout.write(
          options.json
            ? `${JSON.stringify({ runs: [] }, null, 2)}\n`
            : `${formatRunsTable([], 80).join("\n")}\n(no store at ${location})\n`,
        );
        return;
      }
      const store = await openStore(selection);
      try {
        const runs = await listRuns(store, { limit: options.limit, signal: deps.signal });
        if (options.json) {
          const document = runs.map((run) => ({ ...run, outcome: runOutcome(run) }));
          deps.stdout.write(`${JSON.stringify({ runs: document }, null, 2)}\n`);
          return;
        }
        const width = deps.stdout.isTTY && deps.stdout.columns ? deps.stdout.columns : 120;
        // Colour only in a terminal, from the same theme tokens the Ink views use.
        const colored = deps.stdout.isTTY === true && !isColorDisabled(deps.env, !options.color);
        const theme = createTheme({ noColor: !colored });
        const paint: PaintCell = (text, tone) => {
          const color =
            tone === "bad"
              ? theme.status.error
              : tone === "good"
                ? theme.status.success
                : tone === "warning"
                  ? theme.status.warning
                  : undefined;
          return color ? styleText(color as Parameters<typeof styleText>[0], text) : text;
        };
        deps.stdout.write(`${formatRunsTable(runs, width, paint).join("\n")}\n`);
      } finally {
        await store.close();
      }
    });
}
