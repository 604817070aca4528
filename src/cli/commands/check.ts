import { resolve } from "node:path";
import { Command, Option } from "commander";
import type { FileVerdict } from "../../hooks/edit-hooks.js";
import type { CliDeps } from "../cli-deps.js";
import { ExitCode } from "../exit-codes.js";
import { FatalError } from "../fatal-error.js";
import {
  addHookOptions,
  type HookCommandOptions,
  type HookProject,
  hookContext,
  resolveHookProject,
  StoreUnavailable,
  withHookStore,
} from "../hook-runtime.js";

interface CheckCommandOptions extends Omit<HookCommandOptions, "agent"> {
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
 * `shared-ctx check --agent A --path FILE…`: the pre-edit check as a plain command (exit code and
 * one JSON document on stdout), for Cursor, Codex, Aider, git hooks or a CI step. The JSON
 * contract is in docs/coding-agents.md.
 */
export function makeCheckCommand(deps: CliDeps): Command {
  return addHookOptions(
    new Command("check").description(
      "may this agent edit these files now? exit 0 yes, 3 no, 4 ask the person; JSON on stdout",
    ),
    { agent: false },
  )
    .requiredOption("--agent <name>", "who is about to edit (the same id its other hooks use)")
    .requiredOption("--path <file...>", "the file(s) about to change")
    .addOption(
      new Option("--tool <name>", "what will change them (recorded when refused)").default("edit"),
    )
    .action((options: CheckCommandOptions) => check(options, deps));
}

/** `check`'s action: the verdicts of the files, refusals recorded, then the JSON and exit code. */
async function check(options: CheckCommandOptions, deps: CliDeps): Promise<void> {
  const setup = resolveHookProject(options, deps);
  const { checkEdits, conflictSummary } = await import("../../hooks/edit-hooks.js");
  const { editsSubjectOf, denialEpisode } = await import("../../hooks/edit-activity.js");
  const paths = options.path.map((file) => resolve(deps.cwd, file));
  const result = await withHookStore(options, deps, setup, async (store, signal) => {
    const files = await checkEdits(hookContext(setup, store, options.agent, signal), paths);
    // Each refused or asked edit is recorded on the edits subject (what `watch` shows as refused).
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
  if (result instanceof StoreUnavailable) {
    reportStoreDown(result, setup, options, deps);
    return;
  }
  reportVerdicts(result, setup, options, deps);
}

/**
 * Nothing could be checked: the JSON says so, and `hooks.whenStoreDown` decides.
 * @throws FatalError with the deny exit code when it is "deny".
 */
function reportStoreDown(
  unavailable: StoreUnavailable,
  setup: HookProject,
  options: CheckCommandOptions,
  deps: CliDeps,
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
        warning: `the shared context store is unreachable (${unavailable.message}); nothing was checked (hooks.whenStoreDown = "${setup.project.hooks.whenStoreDown}")`,
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
 * The JSON document of every file's verdict, and the worst decision as the exit code.
 * @throws FatalError with the deny or ask exit code when any file is refused or asked.
 */
function reportVerdicts(
  files: readonly FileVerdict[],
  setup: HookProject,
  options: CheckCommandOptions,
  deps: CliDeps,
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
