import { readLlmSettings } from "../llm/llm-settings.js";
import { createLlmProvider } from "../llm/provider.js";
import type { Brain } from "./brain.js";
import { createLlmBrain } from "./llm-brain.js";
import { createOfflineBrain } from "./offline-brain.js";

/**
 * The brain the environment asks for: an LLM brain when `LLM_MODEL` is set, else the offline
 * deterministic one.
 * @throws LlmConfigError when the LLM variables are incomplete or malformed.
 */
export function createBrainFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  options: { fetch?: typeof fetch } = {},
): Brain {
  const settings = readLlmSettings(env);
  if (settings === undefined) return createOfflineBrain();
  return createLlmBrain({
    model: createLlmProvider(settings, options),
    name: `${settings.provider}/${settings.model}`,
    timeoutMs: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    ...(settings.baseURL !== undefined ? { baseURL: settings.baseURL } : {}),
  });
}
