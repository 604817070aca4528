import { type ClaudeCodeHookEvent, claudeCodeOutput } from "./claude-code-output.js";
import type { HookAnswer } from "./edit-hooks.js";
import { fromGeminiInput, geminiOnlyEvents } from "./gemini-cli-input.js";
import { geminiCliOutput } from "./gemini-cli-output.js";
import type { HookInput } from "./hook-input.js";

/**
 * The coding harnesses whose hook formats the edit hooks speak. Claude Code's is the base: an
 * input in another harness's shape is read into it, and the answer written back in the harness's
 * own shape. Pure.
 */
export const harnessNames = ["claude-code", "gemini-cli"] as const;

/** A harness whose hook format is spoken. */
export type HarnessName = (typeof harnessNames)[number];

/** Whether `name` is a harness whose hook format is spoken. */
export function isHarnessName(name: string | undefined): name is HarnessName {
  return name !== undefined && (harnessNames as readonly string[]).includes(name);
}

/**
 * The harness that sent `input`: `flag` when given, else Gemini CLI for an event only it sends
 * (`BeforeTool`, `AfterTool`, `SessionEnd`…), else Claude Code.
 */
export function harnessOf(flag: HarnessName | undefined, input: HookInput): HarnessName {
  if (flag !== undefined) return flag;
  return input.hookEventName !== undefined && geminiOnlyEvents.has(input.hookEventName)
    ? "gemini-cli"
    : "claude-code";
}

/** The input as the edit hooks read it (Claude Code's tool names, absolute paths). */
export function harnessInput(harness: HarnessName, input: HookInput): HookInput {
  return harness === "gemini-cli" ? fromGeminiInput(input) : input;
}

/** The harness's JSON for `answer`, or undefined when there is nothing to say. */
export function harnessOutput(
  harness: HarnessName,
  event: ClaudeCodeHookEvent,
  answer: Omit<HookAnswer, "files">,
): object | undefined {
  return harness === "gemini-cli"
    ? geminiCliOutput(event, answer)
    : claudeCodeOutput(event, answer);
}
