import type { LanguageModelV3GenerateResult } from "@ai-sdk/provider";

/**
 * The steps a `MockLanguageModelV3` plays back in the tool tests (`doGenerate: [step, step, …]`):
 * a step that calls tools, and a last one that answers in text. The token counts are never asserted.
 */

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A step that calls several tools at once (ids `call-<tool>-<index>`: no tool reads them). */
export function toolCallsStep(
  calls: ReadonlyArray<{ toolName: string; input: unknown }>,
): LanguageModelV3GenerateResult {
  return {
    content: calls.map((call, index) => ({
      type: "tool-call",
      toolCallId: `call-${call.toolName}-${index}`,
      toolName: call.toolName,
      input: JSON.stringify(call.input),
    })),
    finishReason: { unified: "tool-calls", raw: "tool_calls" },
    usage,
    warnings: [],
  };
}

/** A step that calls one tool. */
export function toolCallStep(toolName: string, input: unknown): LanguageModelV3GenerateResult {
  return toolCallsStep([{ toolName, input }]);
}

/** The step that answers in text and stops. */
export function textStep(text: string): LanguageModelV3GenerateResult {
  return {
    content: [{ type: "text", text }],
    finishReason: { unified: "stop", raw: "stop" },
    usage,
    warnings: [],
  };
}
