import { Writable } from "node:stream";
import { Command } from "commander";
import type { ContextStore } from "../../context/context-store.js";
import type { PromotionPlan } from "../../promotion/plan-promotion.js";
import type { CliDeps } from "../cli-deps.js";
import { isTerminal, storeOptions, storeSelection } from "../command-helpers.js";
import { ExitCode } from "../exit-codes.js";
import { FatalError, UsageError } from "../fatal-error.js";

interface PromoteCommandOptions {
  into: string;
  approve: string[];
  reject: string[];
  approver?: string;
  dryRun?: boolean;
  json?: boolean;
  db?: string;
  url?: string;
  databaseUrl?: string;
  store?: "embedded" | "statewave";
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * The subject a user meant: a run id (`sw-1a2b3c4d`, a unique prefix, `last`) or any subject id
 * the store has episodes for (an MCP session's `--subject`).
 */
async function resolveSubject(
  store: ContextStore,
  input: string,
  options: { signal: AbortSignal; storeName: string },
): Promise<string> {
  const { isRunId } = await import("../../scenario/run-record.js");
  const { lastRunAlias, resolveRunId } = await import("../../ui/data/find-run.js");
  if (input === lastRunAlias || isRunId(input)) return resolveRunId(store, input, options);
  const page = await store.getTimeline(input, { limit: 1, signal: options.signal });
  if (page.episodes.length > 0) return input;
  try {
    return await resolveRunId(store, input, options);
  } catch (error) {
    // A prefix of several runs keeps its own message; nothing at all is worded for a subject too.
    if (error instanceof Error && /ambiguous/.test(error.message)) throw error;
    throw new UsageError(
      `no run or subject "${input}" in ${options.storeName} (nothing was written to it; \`shared-ctx runs\` lists the runs)`,
      { cause: error },
    );
  }
}

/**
 * In a terminal, asks about each conflicting item no flag settled: approve, reject, or hold it.
 * Never called without a terminal on both ends: a pipe or CI never waits for an answer.
 */
async function askAboutConflicts(
  deps: CliDeps,
  plan: PromotionPlan,
  review: { approve: string[]; reject: string[] },
): Promise<void> {
  const stdin = deps.stdin;
  if (!stdin || !(deps.stdout instanceof Writable)) return;
  const settled = new Set([...review.approve, ...review.reject]);
  const open = plan.items.filter((item) => item.status === "conflict" && !settled.has(item.id));
  if (open.length === 0) return;
  const { createInterface } = await import("node:readline/promises");
  const prompt = createInterface({ input: stdin, output: deps.stdout });
  try {
    for (const item of open) {
      const answer = (
        await prompt.question(`Approve, reject or hold ${item.id}? [a/r/H] `, {
          signal: deps.signal,
        })
      )
        .trim()
        .toLowerCase();
      if (answer === "a" || answer === "approve") review.approve.push(item.id);
      else if (answer === "r" || answer === "reject") review.reject.push(item.id);
    }
  } finally {
    prompt.close();
  }
}

/** `shared-ctx promote <run-id|subject> --into <project-subject>`: a reviewed promotion. */
export function makePromoteCommand(deps: CliDeps): Command {
  return new Command("promote")
    .description(
      "propose a run's active decisions to a long-lived project subject; apply what does not conflict",
    )
    .argument(
      "<run-id|subject>",
      "a run id (sw-1a2b3c4d), a unique prefix, `last`, or any subject id (an MCP session's --subject)",
    )
    .requiredOption(
      "--into <project-subject>",
      "the project subject the decisions are promoted into",
    )
    .option(
      "--approve <id>",
      "promote this conflicting (or earlier rejected) item anyway; repeatable",
      collect,
      [],
    )
    .option("--reject <id>", "keep this item out of the project, recorded; repeatable", collect, [])
    .option(
      "--approver <name>",
      "who reviews: every approval and rejection is attributed to them (default: $USER)",
    )
    .option("--dry-run", "print the plan, write nothing")
    .option("--json", "print one JSON document instead of the report")
    .addOption(storeOptions.kind("the subjects"))
    .addOption(storeOptions.db())
    .addOption(storeOptions.url())
    .addOption(storeOptions.databaseUrl())
    .addHelpText(
      "after",
      [
        "",
        "Each item is one of the run's active decisions, named by its memory id:",
        "  new         the project has no decision on its target: promoted at once",
        "  supersedes  its writer had read the project's decision and has at least its authority:",
        "              promoted at once, superseding it",
        "  conflict    a project decision its writer never read, or one of higher authority: held",
        "              until --approve <id> (or --reject <id>); in a terminal it asks",
        "  unchanged   promoted before; rejected: rejected before (--approve <id> reopens it)",
        "Approvals and rejections are episodes in the project subject, attributed to --approver.",
        "",
        `Exit codes: 0 nothing held; ${ExitCode.promotionHeld} a conflicting item is held (also with --dry-run:`,
        `it would be), so a script knows a person must review; ${ExitCode.usage} a bad id or subject.`,
        "",
        "Examples:",
        "  $ shared-ctx promote monday-session --into my-repo --dry-run",
        "  $ shared-ctx promote monday-session --into my-repo --approve mem-1a2b --reject mem-3c4d",
        "  $ shared-ctx promote last --into my-repo --json | jq .held",
      ].join("\n"),
    )
    .action(async (input: string, options: PromoteCommandOptions) => {
      const [
        { describeStoreLocation, openStore },
        { planRunPromotion },
        { applyPromotion },
        { PromotionInputError },
        { formatPromotionReport },
        { promotionDocument },
      ] = await Promise.all([
        import("../../ui/data/open-store.js"),
        import("../../promotion/promote-run.js"),
        import("../../promotion/apply-promotion.js"),
        import("../../promotion/errors/promotion-input-error.js"),
        import("../../ui/format/promotion-report.js"),
        import("../../promotion/promotion-document.js"),
      ]);
      const selection = storeSelection(options, deps);
      const storeName = describeStoreLocation(selection).location;
      const store = await openStore(selection, { mustExist: true });
      try {
        const runSubjectId = await resolveSubject(store, input, { signal: deps.signal, storeName });
        const plan = await planRunPromotion(store, {
          runSubjectId,
          projectSubjectId: options.into,
          signal: deps.signal,
        }).catch((error: unknown) => {
          throw error instanceof PromotionInputError
            ? new UsageError(error.message, { cause: error })
            : error;
        });
        const review = { approve: [...options.approve], reject: [...options.reject] };
        const interactive =
          !options.json && !options.dryRun && isTerminal(deps.stdout) && deps.stdin?.isTTY === true;
        if (interactive && plan.items.some((item) => item.status === "conflict")) {
          deps.stdout.write(`${formatPromotionReport(plan).slice(0, -1).join("\n")}\n`);
          await askAboutConflicts(deps, plan, review);
        }
        const result = options.dryRun
          ? undefined
          : await applyPromotion(
              store,
              plan,
              {
                ...review,
                approver: options.approver ?? deps.env.USER ?? "person",
                approverAuthority: "user",
              },
              { signal: deps.signal },
            ).catch((error: unknown) => {
              throw error instanceof PromotionInputError
                ? new UsageError(error.message, { cause: error })
                : error;
            });
        deps.stdout.write(
          options.json
            ? `${JSON.stringify(promotionDocument(plan, result), null, 2)}\n`
            : `${formatPromotionReport(plan, result).join("\n")}\n`,
        );
        const settled = new Set([...review.approve, ...review.reject]);
        const held = result
          ? result.held.length
          : plan.items.filter((item) => item.status === "conflict" && !settled.has(item.id)).length;
        if (held > 0) {
          throw new FatalError(
            `${held} conflicting decision${held === 1 ? " is" : "s are"} held: approve or reject ${held === 1 ? "it" : "each"} (see above)`,
            { exitCode: ExitCode.promotionHeld },
          );
        }
      } finally {
        await store.close();
      }
    });
}
