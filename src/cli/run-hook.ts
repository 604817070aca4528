import type { ContextStore } from "../context/context-store.js";
import { messageOf } from "../errors.js";
import type { ClaudeCodeHookEvent } from "../hooks/claude-code-output.js";
import type { HookAnswer } from "../hooks/edit-hooks.js";
import { editTargets } from "../hooks/edit-targets.js";
import type { HarnessName } from "../hooks/harness-format.js";
import type { HookInput } from "../hooks/hook-input.js";
import type { CliDeps } from "./cli-deps.js";
import { UsageError } from "./fatal-error.js";
import {
  type HookCommandOptions,
  type HookProject,
  hookContext,
  readHookInputText,
  resolveHookProject,
  StoreUnavailable,
  withHookStoreRecording,
} from "./hook-runtime.js";

/**
 * What `shared-ctx hook pre-tool-use|post-tool-use|session-start` does once its command line is
 * parsed, apart from commander: the command table (commands/hook.ts) and the hook's fast path
 * (hook-main.ts) both call {@link runHook}.
 */

/** The hook events `shared-ctx hook` answers, by subcommand. */
const events = {
  "pre-tool-use": "PreToolUse",
  "post-tool-use": "PostToolUse",
  "session-start": "SessionStart",
} as const satisfies Record<string, ClaudeCodeHookEvent>;

/** A hook command's flags: the store's and project's, and the harness whose format is spoken. */
export interface HookRunOptions extends HookCommandOptions {
  /** `--harness`: the input's and answer's format. @default detected from the input (see `harnessOf`) */
  harness?: HarnessName;
  /** `--server`: post the input to `shared-ctx serve` there (starting it when down). See hook-forward.ts. */
  server?: string;
}

/** A hook subcommand's name. */
export type HookName = keyof typeof events;

/** The hook subcommands, in the order `--help` lists them. */
export const hookNames = Object.keys(events) as HookName[];

/** Whether `name` is a hook subcommand. */
export function isHookName(name: string | undefined): name is HookName {
  return name !== undefined && Object.hasOwn(events, name);
}

/**
 * Reads the hook input on stdin, answers it from the store and prints the hook's JSON answer
 * (or nothing when there is nothing to say).
 * @throws UsageError for a bad input or a missing agent id
 */
export async function runHook(
  name: HookName,
  options: HookRunOptions,
  deps: CliDeps,
): Promise<void> {
  if (options.server !== undefined) {
    const { forwardHook } = await import("./hook-forward.js");
    return forwardHook({ ...options, server: options.server }, deps);
  }
  const [hooksInput, format] = await Promise.all([
    import("../hooks/hook-input.js"),
    import("../hooks/harness-format.js"),
  ]);
  let input: HookInput;
  try {
    input = hooksInput.parseHookInput(await readHookInputText(deps));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(messageOf(error), { cause: error });
  }
  // Gemini CLI's payloads read as Claude Code's; the answer goes back in the harness's own shape.
  const harness = format.harnessOf(options.harness, input);
  input = format.harnessInput(harness, input);
  if (input.hookEventName === "SessionEnd") return;
  // SHARED_CTX_AGENT before the session: the MCP server of the same terminal speaks under that
  // name, so a session's own decisions are recognised as its own. A subagent gets `/<agent_id>`.
  const agent =
    hooksInput.hookAgentId(input, options.agent, deps.env.SHARED_CTX_AGENT) || undefined;
  if (!agent) {
    throw new UsageError(
      "no agent id: the hook input has no session_id; pass --agent NAME or set SHARED_CTX_AGENT",
    );
  }
  // A Bash call is watched through the working tree: what it really wrote is known after it ran.
  const bash = name !== "session-start" && input.toolName === "Bash";
  const setup = bash ? resolveHookProject(options, deps, input.cwd) : undefined;
  const written =
    bash && setup
      ? await (await import("./bash-watch.js")).watchBashCall(name, input, setup.root, agent, deps)
      : undefined;
  // Most Bash calls write no file: answer them without opening the store (every call pays it).
  if (
    name !== "session-start" &&
    (written ?? editTargets(input.toolName, input.toolInput, input.cwd ?? deps.cwd)).length === 0
  ) {
    return;
  }
  return answerHook(name, options, deps, {
    input,
    agent,
    harness,
    setup: setup ?? resolveHookProject(options, deps, input.cwd),
    ...(written !== undefined ? { written } : {}),
  });
}

/** The hook's answer from the store, printed (nothing when there is nothing to say). */
async function answerHook(
  name: HookName,
  options: HookCommandOptions,
  deps: CliDeps,
  call: {
    input: HookInput;
    agent: string;
    setup: HookProject;
    harness: HarnessName;
    written?: string[];
  },
): Promise<void> {
  const [hooks, { postBashCall }, { harnessOutput }] = await Promise.all([
    import("../hooks/edit-hooks.js"),
    import("../hooks/bash-writes.js"),
    import("../hooks/harness-format.js"),
  ]);
  const { input, agent, setup, written } = call;
  const event = events[name];
  const context = (store: ContextStore, signal: AbortSignal) =>
    hookContext(setup, store, agent, signal);
  // How many decisions a starting session was told (what its record says).
  let decisions = 0;
  // The verdict first, then its record: a record that fails (another process holds the store's
  // lock past the budget) never turns a refusal into a pass.
  const result = await withHookStoreRecording(
    options,
    deps,
    setup,
    (store, signal): Promise<HookAnswer> => {
      switch (name) {
        case "pre-tool-use":
          return hooks.judgeToolUse(context(store, signal), input);
        case "post-tool-use":
          return written !== undefined
            ? postBashCall(context(store, signal), input, written)
            : hooks.postToolUse(context(store, signal), input);
        case "session-start":
          return hooks.sessionSummary(context(store, signal)).then((summary) => {
            decisions = summary.decisions;
            return summary.answer;
          });
      }
    },
    (answer, store, signal) => {
      if (name === "pre-tool-use") {
        return hooks.recordRefusals(context(store, signal), input.toolName ?? "tool", answer.files);
      }
      if (name === "session-start") {
        return hooks.recordSessionStart(context(store, signal), input, decisions);
      }
      return Promise.resolve();
    },
  );
  if (!(result instanceof StoreUnavailable)) {
    const failure = result.recordFailure
      ? `the store ${result.recordFailure.state} (${result.recordFailure.message})`
      : result.value.recordFailure;
    if (failure !== undefined) {
      deps.stderr.write(
        `shared-ctx: hook ${name}: the verdict was answered, but recording it failed: ${failure}; watch will not list it\n`,
      );
    }
  }
  const output = harnessOutput(
    call.harness,
    event,
    result instanceof StoreUnavailable
      ? storeDownAnswer(name, result, setup.project.hooks.whenStoreDown, input)
      : result.value,
  );
  if (output !== undefined) deps.stdout.write(`${JSON.stringify(output)}\n`);
}

/**
 * What a hook answers when the store is down: never a silent pass. `allow` lets the edit through
 * with a warning the person sees and the agent reads; `deny` refuses edits until the store is back.
 */
export function storeDownAnswer(
  name: HookName,
  down: StoreUnavailable,
  whenStoreDown: "allow" | "deny",
  input: HookInput,
): Omit<HookAnswer, "files"> {
  const what = `shared-ctx: the shared context store ${down.state} (${down.message})`;
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
