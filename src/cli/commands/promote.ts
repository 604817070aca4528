import { Writable } from "node:stream";
import { Command } from "commander";
import type { ContextStore } from "../../context/context-store.js";
import type { PromotionResult } from "../../promotion/apply-promotion.js";
import type { PromotionPlan } from "../../promotion/plan-promotion.js";
import type { CliDeps } from "../cli-deps.js";
import {
  addStoreOptions,
  isTerminal,
  parseSubjectId,
  type StoreFlags,
  withSelectedStore,
} from "../command-helpers.js";
import { ExitCode } from "../exit-codes.js";
import { asUsageErrorWhen, FatalError, UsageError } from "../fatal-error.js";

interface PromoteCommandOptions extends StoreFlags {
  into: string;
  approve: string[];
  reject: string[];
  approver?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** The items a person settled: by the flags, then by the answers in a terminal. */
interface Review {
  approve: string[];
  reject: string[];
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
  const { resolveSubjectInput } = await import("../../ui/data/find-subject.js");
  const { subjectId, known } = await resolveSubjectInput(store, input, options);
  if (known) return subjectId;
  throw new UsageError(
    `no run or subject "${input}" in ${options.storeName} (nothing was written to it; \`shared-ctx runs\` lists the runs)`,
  );
}

/**
 * Each `--approve`/`--reject` id as the item it names: a whole item id or a unique prefix of one
 * (`c5f666de`), as run ids take prefixes.
 * @throws UsageError naming the flag, for an id that names no item or several: with the few
 * nearest items, never all of a plan's hundreds
 */
function resolveItemIds(
  plan: PromotionPlan,
  flags: Review,
  nearestIds: (typed: string, candidates: readonly string[]) => string[],
  listSome: (shown: readonly string[], total: number) => string,
): Review {
  const ids = plan.items.map((item) => item.id);
  const resolve = (flag: keyof Review, typed: string): string => {
    if (ids.includes(typed)) return typed;
    const matches = typed === "" ? [] : ids.filter((id) => id.startsWith(typed.toLowerCase()));
    const [only] = matches;
    if (matches.length === 1 && only !== undefined) return only;
    const what =
      matches.length > 1
        ? `is ambiguous: it starts ${listSome(nearestIds(typed, matches), matches.length)}; give more of it`
        : ids.length === 0
          ? `is not an item: the promotion of ${plan.runSubjectId} has none`
          : `is not an item of the promotion of ${plan.runSubjectId}; nearest: ${listSome(nearestIds(typed, ids), ids.length)}`;
    throw new UsageError(`--${flag} "${typed}" ${what}`);
  };
  return {
    approve: flags.approve.map((id) => resolve("approve", id)),
    reject: flags.reject.map((id) => resolve("reject", id)),
  };
}

/**
 * In a terminal, asks about each conflicting item no flag settled: approve, reject, or hold it.
 * Never called without a terminal on both ends: a pipe or CI never waits for an answer.
 */
async function askAboutConflicts(
  deps: CliDeps,
  plan: PromotionPlan,
  review: Review,
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
  const command = new Command("promote")
    .description(
      "propose a run's active decisions to a long-lived project subject; apply what does not conflict",
    )
    .argument(
      "<run-id|subject>",
      "a run id (sw-1a2b3c4d), a unique prefix, `last`, or any subject id (an MCP session's --subject)",
      parseSubjectId,
    )
    .requiredOption(
      "--into <project-subject>",
      "the project subject the decisions are promoted into",
      parseSubjectId,
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
    .option("--json", "print one JSON document instead of the report");
  return addStoreOptions(command, "the subjects")
    .addHelpText("after", promoteHelpText)
    .action((input: string, options: PromoteCommandOptions) => promote(input, options, deps));
}

/** The help after the options: what each item's status means, exit codes, examples. */
const promoteHelpText = [
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
].join("\n");

/**
 * `promote`'s action: the plan, the person's review (flags, then a terminal's answers), the
 * promotion applied unless `--dry-run`, the report; exits {@link ExitCode.promotionHeld} while an
 * item is held.
 */
async function promote(input: string, options: PromoteCommandOptions, deps: CliDeps) {
  const [
    { planRunPromotion },
    { PromotionInputError },
    { formatPromotionReport },
    { promotionDocument },
    { nearestIds, listSome },
  ] = await Promise.all([
    import("../../promotion/promote-run.js"),
    import("../../promotion/errors/promotion-input-error.js"),
    import("../../ui/format/promotion-report.js"),
    import("../../promotion/promotion-document.js"),
    import("../../ui/format/did-you-mean.js"),
  ]);
  await withSelectedStore(options, deps, { mustExist: true }, async (store, storeName) => {
    const runSubjectId = await resolveSubject(store, input, { signal: deps.signal, storeName });
    const plan = await planRunPromotion(store, {
      runSubjectId,
      projectSubjectId: options.into,
      signal: deps.signal,
    }).catch((error: unknown) => {
      throw asUsageErrorWhen(error, PromotionInputError);
    });
    const review = resolveItemIds(plan, options, nearestIds, listSome);
    const interactive =
      !options.json && !options.dryRun && isTerminal(deps.stdout) && deps.stdin?.isTTY === true;
    if (interactive && plan.items.some((item) => item.status === "conflict")) {
      deps.stdout.write(`${formatPromotionReport(plan).slice(0, -1).join("\n")}\n`);
      await askAboutConflicts(deps, plan, review);
    }
    const result = options.dryRun
      ? undefined
      : await applyReviewed(store, plan, review, options, deps);
    deps.stdout.write(
      options.json
        ? `${JSON.stringify(promotionDocument(plan, result), null, 2)}\n`
        : `${formatPromotionReport(plan, result).join("\n")}\n`,
    );
    throwWhileHeld(plan, review, result);
  });
}

/** The plan applied as the person reviewed it, each approval and rejection attributed to them. */
async function applyReviewed(
  store: ContextStore,
  plan: PromotionPlan,
  review: Review,
  options: PromoteCommandOptions,
  deps: CliDeps,
): Promise<PromotionResult> {
  const [{ applyPromotion }, { PromotionInputError }] = await Promise.all([
    import("../../promotion/apply-promotion.js"),
    import("../../promotion/errors/promotion-input-error.js"),
  ]);
  return applyPromotion(
    store,
    plan,
    {
      ...review,
      approver: options.approver ?? deps.env.USER ?? "person",
      approverAuthority: "user",
    },
    { signal: deps.signal },
  ).catch((error: unknown) => {
    throw asUsageErrorWhen(error, PromotionInputError);
  });
}

/**
 * Exits {@link ExitCode.promotionHeld} while a conflicting item is held (with `--dry-run`: would
 * be), so that a script knows a person must review.
 */
function throwWhileHeld(plan: PromotionPlan, review: Review, result?: PromotionResult): void {
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
}
