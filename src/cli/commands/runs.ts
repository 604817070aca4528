import { existsSync } from "node:fs";
import { styleText } from "node:util";
import { Command, InvalidArgumentError } from "commander";
import type { PaintCell } from "../../ui/format/runs-table.js";
import type { CliDeps } from "../cli-deps.js";
import {
  addStoreOptions,
  type StoreFlags,
  storeSelection,
  withSelectedStore,
} from "../command-helpers.js";

interface RunsCommandOptions extends StoreFlags {
  limit: number;
  json?: boolean;
  color: boolean;
}

function parseLimit(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new InvalidArgumentError("expected a whole number > 0");
  return value;
}

/** `shared-ctx runs`: recent runs, newest first. */
export function makeRunsCommand(deps: CliDeps): Command {
  const command = new Command("runs")
    .description("list recent runs (id, mode, scenario, when, outcome, task), newest first")
    .argument("[run-id]", "only this run: its id, a unique prefix of one (sw-1a, 1a2b), or `last`")
    .option("--limit <n>", "at most this many runs", parseLimit, 20)
    .option("--json", "print one JSON document")
    .option("--no-color", "print without colour (NO_COLOR is honoured too)");
  return addStoreOptions(command, "the runs").action(
    (runInput: string | undefined, options: RunsCommandOptions) =>
      listRecentRuns(runInput, options, deps),
  );
}

/** `runs`' action: the runs as a table (coloured in a terminal) or JSON; none without a store. */
async function listRecentRuns(
  runInput: string | undefined,
  options: RunsCommandOptions,
  deps: CliDeps,
): Promise<void> {
  // Loaded here, not at the top: the store's driver is this command's alone (start-up cost).
  const [
    { describeStoreLocation },
    { listRuns, readRunListing },
    { formatRunsTable, runOutcome },
    { createTheme, isColorDisabled },
    { resolveRunId },
  ] = await Promise.all([
    import("../../ui/data/open-store.js"),
    import("../../ui/data/read-run.js"),
    import("../../ui/format/runs-table.js"),
    import("../../ui/theme/tokens.js"),
    import("../../ui/data/find-run.js"),
  ]);
  const selection = storeSelection(options, deps);
  const { kind, location } = describeStoreLocation(selection);
  if (
    runInput === undefined &&
    kind === "embedded" &&
    location !== ":memory:" &&
    !existsSync(location)
  ) {
    // No store file yet simply means no runs yet (and nothing is created by listing).
    deps.stdout.write(
      options.json
        ? `${JSON.stringify({ runs: [] }, null, 2)}\n`
        : `${formatRunsTable([], 80).join("\n")}\n(no store at ${location})\n`,
    );
    return;
  }
  const mustExist = runInput !== undefined;
  await withSelectedStore(options, deps, { mustExist }, async (store, storeName) => {
    const signal = deps.signal;
    const runs =
      runInput === undefined
        ? await listRuns(store, { limit: options.limit, signal })
        : [
            await readRunListing(
              store,
              await resolveRunId(store, runInput, { signal, storeName }),
              signal,
            ),
          ];
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
  });
}
