import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { makeBenchHistoryCommand } from "./bench-history.js";
import { makeBenchHooksCommand } from "./bench-hooks.js";
import { makeBenchMergeCommand } from "./bench-merge.js";
import { makeBenchQuickstartCommand } from "./bench-quickstart.js";
import { makeBenchRequestsCommand } from "./bench-requests.js";
import { makeBenchScenariosCommand } from "./bench-scenarios.js";
import { makeBenchStartupCommand } from "./bench-startup.js";
import { makeBenchStoreCommand } from "./bench-store.js";

/** `shared-ctx bench store|merge|startup|quickstart|scenarios|hooks|history|requests`: benchmarks that print measured figures (never run in tests). */
export function makeBenchCommand(deps: CliDeps): Command {
  return new Command("bench")
    .description(
      "measure the store, the merge strategies, start-up, the modes on every scenario, costs as history grows, and requests per run",
    )
    .addCommand(makeBenchStoreCommand(deps))
    .addCommand(makeBenchMergeCommand(deps))
    .addCommand(makeBenchStartupCommand(deps))
    .addCommand(makeBenchQuickstartCommand(deps))
    .addCommand(makeBenchScenariosCommand(deps))
    .addCommand(makeBenchHooksCommand(deps))
    .addCommand(makeBenchHistoryCommand(deps))
    .addCommand(makeBenchRequestsCommand(deps));
}
