import type { ClaudeCodeHookEvent } from "./claude-code-output.js";
import type { HookAnswer } from "./edit-hooks.js";
import { geminiCliEvents } from "./gemini-cli-input.js";

/**
 * A hook's answer in Gemini CLI's shape (0.61.0, as ../shared/fixtures/gemini-cli-0.61.0/ records
 * it): only a top-level `{"decision":"deny","reason":…}` blocks a tool (Claude Code's
 * `hookSpecificOutput.permissionDecision` is ignored there, and the edit goes through); the reason
 * reaches the model as `Tool execution blocked: <reason>`. `"ask"` waits, in a headless session,
 * for a confirmation nobody can give, so an edit the project would put to a person is refused
 * instead, saying so. `hookSpecificOutput.additionalContext` reaches the model after `SessionStart`
 * and `AfterTool` only (`BeforeTool` has none): a pre-edit note goes to the person as
 * `systemMessage`, as a warning does.
 */
export interface GeminiCliHookOutput {
  decision?: "deny";
  reason?: string;
  hookSpecificOutput?: { hookEventName: string; additionalContext: string };
  systemMessage?: string;
}

/** What replaces `"ask"` in Gemini CLI: the reason says why the edit was refused instead. */
export const askBecomesDeny =
  'shared-ctx: this project puts such an edit to a person (hooks.onConflict = "ask"), but a Gemini CLI hook that asks hangs a headless session, so it is refused instead. Ask the person yourself, and retry once they have published a decision.';

/** The output for `answer`, or undefined when there is nothing to say (print nothing, exit 0). */
export function geminiCliOutput(
  event: ClaudeCodeHookEvent,
  answer: Omit<HookAnswer, "files">,
): GeminiCliHookOutput | undefined {
  const output: GeminiCliHookOutput = {};
  if (event === "PreToolUse" && answer.decision !== undefined) {
    const reason = answer.reason ?? "shared-ctx: refused by the shared context";
    output.decision = "deny";
    output.reason = answer.decision === "ask" ? `${reason}\n${askBecomesDeny}` : reason;
  }
  const notes: string[] = [];
  if (event === "PreToolUse") {
    if (answer.context !== undefined) notes.push(answer.context);
  } else {
    const context = [answer.context, answer.warning].filter((part) => part !== undefined);
    if (context.length > 0) {
      output.hookSpecificOutput = {
        hookEventName: geminiCliEvents[event],
        additionalContext: context.join("\n"),
      };
    }
  }
  if (answer.warning !== undefined) notes.push(answer.warning);
  if (notes.length > 0) output.systemMessage = notes.join("\n");
  return Object.keys(output).length > 0 ? output : undefined;
}
