import { Command, Option } from "commander";
import { harnessNames } from "../../hooks/harness-format.js";
import type { CliDeps } from "../cli-deps.js";
import { type HookName, type HookRunOptions, hookNames, runHook } from "../run-hook.js";
import { addHookOptions } from "./hook-options.js";

const descriptions: Record<HookName, string> = {
  "pre-tool-use":
    "before an edit: refuse it when a decision retires the file's module, another session holds it, or it is in dispute",
  "post-tool-use":
    "after an edit: record it as this session's claim on the module (two sessions at once raise an escalation)",
  "session-start": "at session start: give the session the active decisions and open disputes",
};

/**
 * `shared-ctx hook pre-tool-use|post-tool-use|session-start`: Claude Code command hooks. Each
 * reads the hook input JSON on stdin and prints the hook's JSON answer on stdout (exit 0), or
 * nothing when it has nothing to say. See docs/coding-agents.md.
 */
export function makeHookCommand(deps: CliDeps): Command {
  const hook = new Command("hook")
    .description(
      "Claude Code and Gemini CLI hooks that enforce the shared context at each edit (JSON on stdin/stdout)",
    )
    .addHelpText(
      "after",
      [
        "",
        "Installed by `shared-ctx init claude-code` or `shared-ctx init gemini-cli`; see docs/coding-agents.md.",
        '  $ echo \'{"session_id":"s1","tool_name":"Edit","tool_input":{"file_path":"\'$PWD\'/src/x/a.ts"}}\' | shared-ctx hook pre-tool-use',
      ].join("\n"),
    );
  for (const name of hookNames) {
    hook.addCommand(
      addHookOptions(new Command(name).description(descriptions[name]), { agent: true })
        .addOption(
          new Option(
            "--harness <name>",
            "the harness whose hook JSON is read and answered (default: gemini-cli for its BeforeTool/AfterTool events, else claude-code)",
          ).choices(harnessNames),
        )
        .option(
          "--server <url>",
          "post the input to shared-ctx serve at this URL (starting it there when it is down and the URL is loopback) and print its answer",
        )
        .action((options: HookRunOptions) => runHook(name, options, deps)),
    );
  }
  return hook;
}
