import { resolve } from "node:path";
import type { FileVerdict } from "../hooks/edit-hooks.js";
import type { CliDeps } from "./cli-deps.js";
import { ExitCode } from "./exit-codes.js";
import { FatalError } from "./fatal-error.js";
import {
  type HookCommandOptions,
  type HookProject,
  hookContext,
  resolveHookProject,
  StoreUnavailable,
  withHookStore,
} from "./hook-runtime.js";

/** `shared-ctx check`'s options, as parsed by commander or by the hook's fast path. */
export interface CheckCommandOptions extends Omit<HookCommandOptions, "agent"> {
  agent: string;
  path: string[];
  tool: string;
}

/**
 * Exit codes of `shared-ctx check`, for any harness with a pre-action hook: 0 the edit may go on,
 * 3 refused, 4 put to the person (`hooks.onConflict: "ask"`). 1 and 2 keep their meaning
 * (a failure; a wrong command line or configuration).
 */
export const checkExitCodes = {
  allow: ExitCode.ok,
  deny: ExitCode.editDenied,
  ask: ExitCode.editAsk,
} as const;

/**
 * What `shared-ctx check` does once its command line is parsed (commands/check.ts and the hook's
 * fast path both call it): prints the JSON verdict, records refusals.
 * @throws FatalError with {@link checkExitCodes}' code when the edit is refused or put to the person
 */
export async function runCheck(options: CheckCommandOptions, deps: CliDeps): Promise<void> {
  const setup = resolveHookProject(options, deps);
  const result = await checkAndRecordRefusals(options, deps, setup);
  if (result instanceof StoreUnavailable) reportStoreDown(result, options, deps, setup);
  else reportVerdicts(result, options, deps, setup);
}

/**
 * Each path judged against the subject's decisions; each refused (or asked) file recorded as a
 * denial episode, so that `watch` shows who was refused what.
 */
async function checkAndRecordRefusals(
  options: CheckCommandOptions,
  deps: CliDeps,
  setup: HookProject,
): Promise<FileVerdict[] | StoreUnavailable> {
  const { checkEdits, conflictSummary } = await import("../hooks/edit-hooks.js");
  const { editsSubjectOf, denialEpisode } = await import("../hooks/edit-activity.js");
  const paths = options.path.map((file) => resolve(deps.cwd, file));
  return withHookStore(options, deps, setup, async (store, signal) => {
    const files = await checkEdits(hookContext(setup, store, options.agent, signal), paths);
    const refused = files.filter((file) => file.verdict && file.verdict.decision !== "allow");
    for (const file of refused) {
      if (!file.verdict || file.verdict.decision === "allow") continue;
      await store.createEpisode(
        denialEpisode({
          subjectId: setup.subjectId,
          agent: options.agent,
          module: file.verdict.module,
          path: file.path,
          tool: options.tool,
          decision: file.verdict.decision,
          why: file.verdict.conflicts.map(conflictSummary).join("; "),
        }),
        { signal },
      );
    }
    if (refused.length > 0)
      await store.compileMemories(editsSubjectOf(setup.subjectId), { signal });
    return files;
  });
}

/**
 * A store that is down: nothing was checked; the JSON says so, and `hooks.whenStoreDown` decides
 * whether the edit goes on.
 * @throws FatalError (deny) when `hooks.whenStoreDown` is "deny"
 */
function reportStoreDown(
  down: StoreUnavailable,
  options: CheckCommandOptions,
  deps: CliDeps,
  setup: HookProject,
): void {
  const deny = setup.project.hooks.whenStoreDown === "deny";
  deps.stdout.write(
    `${JSON.stringify(
      {
        decision: deny ? "deny" : "allow",
        subject: setup.subjectId,
        agent: options.agent,
        files: [],
        storeDown: true,
        warning: `the shared context store is unreachable (${down.message}); nothing was checked (hooks.whenStoreDown = "${setup.project.hooks.whenStoreDown}")`,
      },
      null,
      2,
    )}\n`,
  );
  if (deny) {
    throw new FatalError('check: the store is down and hooks.whenStoreDown is "deny"', {
      exitCode: checkExitCodes.deny,
    });
  }
  deps.stderr.write(`shared-ctx: check: the store is down; allowed unchecked\n`);
}

/**
 * The verdict as JSON on stdout (the contract) and, when not allowed, one line on stderr for a
 * person.
 * @throws FatalError with {@link checkExitCodes}' code when the edit is refused or asked
 */
function reportVerdicts(
  files: readonly FileVerdict[],
  options: CheckCommandOptions,
  deps: CliDeps,
  setup: HookProject,
): void {
  const verdicts = files.flatMap((file) => (file.verdict ? [file.verdict] : []));
  const decision = verdicts.some((verdict) => verdict.decision === "deny")
    ? "deny"
    : verdicts.some((verdict) => verdict.decision === "ask")
      ? "ask"
      : "allow";
  const reasons = verdicts.flatMap((verdict) => (verdict.reason ? [verdict.reason] : []));
  deps.stdout.write(
    `${JSON.stringify(
      {
        decision,
        subject: setup.subjectId,
        agent: options.agent,
        ...(reasons.length > 0 ? { reason: reasons.join("\n") } : {}),
        files: files.map((file) => ({
          path: file.path,
          module: file.verdict?.module ?? null,
          decision: file.verdict?.decision ?? "allow",
          conflicts: file.verdict?.conflicts ?? [],
          unread: file.verdict?.unread ?? [],
        })),
      },
      null,
      2,
    )}\n`,
  );
  if (decision !== "allow") {
    // One line on stderr for a person; the JSON on stdout is the contract.
    throw new FatalError(
      `check: ${decision === "deny" ? "refused" : "needs the person's approval"}: ${verdicts
        .filter((verdict) => verdict.decision !== "allow")
        .map(
          (verdict) =>
            `${verdict.path} (${verdict.module}: ${verdict.conflicts.map((conflict) => conflict.type).join(", ")})`,
        )
        .join("; ")}`,
      { exitCode: checkExitCodes[decision] },
    );
  }
}
