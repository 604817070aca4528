import type { HookAnswer } from "./edit-hooks.js";

/**
 * A hook's answer in Claude Code's JSON output shape (hooks reference,
 * https://code.claude.com/docs/en/hooks, "JSON output" and "PreToolUse decision control"):
 * `hookSpecificOutput` with `hookEventName`, for `PreToolUse` `permissionDecision`
 * (`"deny"` shows `permissionDecisionReason` to the model, `"ask"` to the person) and
 * `additionalContext` for every event; top-level `systemMessage` is a warning the person sees.
 * Nothing to say is no output at all: the hook never answers `"allow"`, which would skip the
 * person's own permission rules for the call.
 */
export type ClaudeCodeHookEvent = "PreToolUse" | "PostToolUse" | "SessionStart";

/** The JSON a Claude Code command hook prints on stdout (with exit code 0). */
export interface ClaudeCodeHookOutput {
  hookSpecificOutput?: {
    hookEventName: ClaudeCodeHookEvent;
    permissionDecision?: "deny" | "ask";
    permissionDecisionReason?: string;
    additionalContext?: string;
  };
  systemMessage?: string;
  /** `PostToolUse`: `"block"` tells the model `reason` (the call already ran). */
  decision?: "block";
  reason?: string;
}

/** The output for `answer`, or undefined when there is nothing to say (print nothing, exit 0). */
export function claudeCodeOutput(
  event: ClaudeCodeHookEvent,
  answer: Omit<HookAnswer, "files">,
): ClaudeCodeHookOutput | undefined {
  const specific: NonNullable<ClaudeCodeHookOutput["hookSpecificOutput"]> = {
    hookEventName: event,
  };
  if (event === "PreToolUse" && answer.decision !== undefined) {
    specific.permissionDecision = answer.decision;
    if (answer.reason !== undefined) specific.permissionDecisionReason = answer.reason;
  }
  const context = [answer.context, answer.warning].filter((part) => part !== undefined).join("\n");
  if (context) specific.additionalContext = context;
  const output: ClaudeCodeHookOutput = {};
  // After the call, a refusal is news for the model: what it did must be undone or settled.
  if (event === "PostToolUse" && answer.decision !== undefined) {
    output.decision = "block";
    if (answer.reason !== undefined) output.reason = answer.reason;
  }
  if (Object.keys(specific).length > 1) output.hookSpecificOutput = specific;
  if (answer.warning !== undefined) output.systemMessage = answer.warning;
  return Object.keys(output).length > 0 ? output : undefined;
}
