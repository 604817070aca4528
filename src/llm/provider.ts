import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModel } from "ai";
import type { LlmSettings } from "./llm-settings.js";

/** Options of {@link createLlmProvider}. */
export interface LlmProviderOptions {
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/**
 * The language model for the settings, through `@ai-sdk/openai`'s chat-completions API, which
 * every OpenAI-compatible server speaks (OpenAI, Groq, OpenRouter, Ollama, vLLM, LM Studio).
 */
export function createLlmProvider(
  settings: LlmSettings,
  options: LlmProviderOptions = {},
): LanguageModel {
  const provider = createOpenAI({
    name: settings.provider,
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    ...(settings.baseURL !== undefined ? { baseURL: settings.baseURL } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return provider.chat(settings.model);
}
