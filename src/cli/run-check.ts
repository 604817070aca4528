import { resolve } from "node:path";
import type { FileVerdict } from "../hooks/edit-hooks.js";
import { normaliseAgentName } from "../hooks/session-name.js";
import type { CliDeps } from "./cli-deps.js";
import { ExitCode } from "./exit-codes.js";
import { FatalError } from "./fatal-error.js";
import {
  type HookCommandOptions,
  type HookProject,
  hookContext,
  type RecordedResult,
  resolveHookProject,
  StoreUnavailable,
  withHookStoreRecording,
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
export async function runCheck(given: CheckCommandOptions, deps: CliDeps): Promise<void> {
  // A name no store takes as an author (too long, a NUL) becomes a stable, valid one.
  const options = { ...given, agent: normaliseAgentName(given.agent) };
  const setup = resolveHookProject(options, deps);
  const result = await checkAndRecordRefusals(options, deps, setup);
  if (result instanceof StoreUnavailable) {
    reportStoreDown(result, options, deps, setup);
    return;
  }
  if (result.recordFailure !== undefined) {
    deps.stderr.write(
      `shared-ctx: check: the verdict stands, but recording it failed: the store ${result.recordFailure.state} (${result.recordFailure.message}); watch will not list it\n`,
    );
  }
  reportVerdicts(result.value, options, deps, setup);
}

/**
 * Each path judged against the subject's decisions, then each refused (or asked) file recorded as
 * a denial episode, so that `watch` shows who was refused what. The verdict is final first: a
 * record that fails comes back beside it and changes nothing.
 */
async function checkAndRecordRefusals(
  options: CheckCommandOptions,
  deps: CliDeps,
  setup: HookProject,
): Promise<RecordedResult<FileVerdict[]> | StoreUnavailable> {
  const { checkEdits, recordRefusals } = await import("../hooks/edit-hooks.js");
  const paths = options.path.map((file) => resolve(deps.cwd, file));
  return withHookStoreRecording(
    options,
    deps,
    setup,
    (store, signal) => checkEdits(hookContext(setup, store, options.agent, signal), paths),
    (files, store, signal) =>
      recordRefusals(hookContext(setup, store, options.agent, signal), options.tool, files),
  );
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
        warning: `the shared context store ${down.state} (${down.message}); nothing was checked (hooks.whenStoreDown = "${setup.project.hooks.whenStoreDown}")`,
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
  deps.stderr.write(
    `shared-ctx: check: the store ${down.state} (${down.message}); allowed unchecked\n`,
  );
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
