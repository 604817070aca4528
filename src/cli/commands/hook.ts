import { Command } from "commander";
import type { ClaudeCodeHookEvent } from "../../hooks/claude-code-output.js";
import type { HookAnswer } from "../../hooks/edit-hooks.js";
import { editTargets } from "../../hooks/edit-targets.js";
import type { HookInput } from "../../hooks/hook-input.js";
import type { CliDeps } from "../cli-deps.js";
import { UsageError } from "../fatal-error.js";
import {
  addHookOptions,
  type HookCommandOptions,
  hookContext,
  readStdin,
  resolveHookProject,
  StoreUnavailable,
  withHookStore,
} from "../hook-runtime.js";

/** The hook events `shared-ctx hook` answers, by subcommand. */
const events = {
  "pre-tool-use": "PreToolUse",
  "post-tool-use": "PostToolUse",
  "session-start": "SessionStart",
} as const satisfies Record<string, ClaudeCodeHookEvent>;

type HookName = keyof typeof events;

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
      "Claude Code hooks that enforce the shared context at each edit (JSON on stdin/stdout)",
    )
    .addHelpText(
      "after",
      [
        "",
        "Installed by `shared-ctx init claude-code`; see docs/coding-agents.md.",
        '  $ echo \'{"session_id":"s1","tool_name":"Edit","tool_input":{"file_path":"\'$PWD\'/src/x/a.ts"}}\' | shared-ctx hook pre-tool-use',
      ].join("\n"),
    );
  for (const name of Object.keys(events) as HookName[]) {
    hook.addCommand(
      addHookOptions(new Command(name).description(descriptions[name]), { agent: true }).action(
        (options: HookCommandOptions) => runHook(name, options, deps),
      ),
    );
  }
  return hook;
}

async function runHook(name: HookName, options: HookCommandOptions, deps: CliDeps): Promise<void> {
  const [{ parseHookInput, maxHookInputBytes }, hooks, { claudeCodeOutput }] = await Promise.all([
    import("../../hooks/hook-input.js"),
    import("../../hooks/edit-hooks.js"),
    import("../../hooks/claude-code-output.js"),
  ]);
  let input: HookInput;
  try {
    input = parseHookInput(await readStdin(deps, maxHookInputBytes));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  // SHARED_CTX_AGENT before the session: the MCP server of the same terminal speaks under that
  // name, so a session's own decisions are recognised as its own.
  const agent = options.agent || deps.env.SHARED_CTX_AGENT || input.sessionId || undefined;
  if (!agent) {
    throw new UsageError(
      "no agent id: the hook input has no session_id; pass --agent NAME or set SHARED_CTX_AGENT",
    );
  }
  // Most Bash calls write no file: answer them without opening the store (every call pays it).
  if (
    name !== "session-start" &&
    editTargets(input.toolName, input.toolInput, input.cwd ?? deps.cwd).length === 0
  ) {
    return;
  }
  const setup = resolveHookProject(options, deps, input.cwd);
  const event = events[name];
  const answer = await withHookStore(options, deps, setup, (store, signal) => {
    const context = hookContext(setup, store, agent, signal);
    switch (name) {
      case "pre-tool-use":
        return hooks.preToolUse(context, input);
      case "post-tool-use":
        return hooks.postToolUse(context, input);
      case "session-start":
        return hooks.sessionStart(context, input);
    }
  });
  const output = claudeCodeOutput(
    event,
    answer instanceof StoreUnavailable
      ? storeDownAnswer(name, answer, setup.project.hooks.whenStoreDown, input)
      : answer,
  );
  if (output !== undefined) deps.stdout.write(`${JSON.stringify(output)}\n`);
}

/**
 * What a hook answers when the store is down: never a silent pass. `allow` lets the edit through
 * with a warning the person sees and the agent reads; `deny` refuses edits until the store is back.
 */
function storeDownAnswer(
  name: HookName,
  down: StoreUnavailable,
  whenStoreDown: "allow" | "deny",
  input: HookInput,
): Omit<HookAnswer, "files"> {
  const what = `shared-ctx: the shared context store is unreachable (${down.message})`;
  // Only an edit can be refused; other tools and the other hooks just carry the warning.
  const isEdit =
    name === "pre-tool-use" &&
    editTargets(input.toolName, input.toolInput, input.cwd ?? "/").length > 0;
  if (whenStoreDown === "deny" && isEdit) {
    return {
      decision: "deny",
      reason: `${what}, and this project refuses edits while it cannot check them (hooks.whenStoreDown = "deny"). Instead: bring the store back (or fix --db/--url), then retry; or ask the person to change hooks.whenStoreDown in shared-ctx.config.json.`,
    };
  }
  return {
    warning: `${what}; ${isEdit ? "this edit was NOT checked against" : "this session was not given"} the team's decisions and claims (hooks.whenStoreDown = "${whenStoreDown}").`,
  };
}
