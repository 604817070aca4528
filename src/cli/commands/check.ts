import { Command, Option } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { type CheckCommandOptions, runCheck } from "../run-check.js";
import { addHookOptions } from "./hook-options.js";

export { checkExitCodes } from "../run-check.js";

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
    .action((options: CheckCommandOptions) => runCheck(options, deps));
}
