/**
 * `shared-ctx/llm`: the OpenAI-compatible provider the LLM brain thinks with, configured from the
 * same `LLM_*` settings as `shared-ctx run`; a separate entry point so that the main `shared-ctx`
 * entry never loads the AI SDK's providers.
 */

export { LlmAuthError } from "./llm/errors/llm-auth-error.js";
export { LlmConfigError } from "./llm/errors/llm-config-error.js";
export { LlmConnectionError } from "./llm/errors/llm-connection-error.js";
export { LlmOutputError } from "./llm/errors/llm-output-error.js";
export { LlmRequestError } from "./llm/errors/llm-request-error.js";
export { LlmTimeoutError } from "./llm/errors/llm-timeout-error.js";
export { type LlmSettings, readLlmSettings } from "./llm/llm-settings.js";
export { createLlmProvider, type LlmProviderOptions } from "./llm/provider.js";
