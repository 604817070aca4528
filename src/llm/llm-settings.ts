import { LlmConfigError } from "./errors/llm-config-error.js";

/** Where a model lives and how to call it. */
export interface LlmSettings {
  /** "openai", "groq", "ollama", … (any name works with `baseURL`). */
  provider: string;
  model: string;
  apiKey: string | undefined;
  /** @default the provider's known URL */
  baseURL: string | undefined;
  /** Per call. @default 60000 */
  timeoutMs: number;
  /** Retries of 429 and 5xx answers. @default 2 */
  maxRetries: number;
}

/** OpenAI-compatible servers whose address is well known. */
export const knownBaseUrls: Readonly<Record<string, string>> = {
  openai: "https://api.openai.com/v1",
  groq: "https://api.groq.com/openai/v1",
  openrouter: "https://openrouter.ai/api/v1",
  ollama: "http://localhost:11434/v1",
  lmstudio: "http://localhost:1234/v1",
  vllm: "http://localhost:8000/v1",
};

/** Local servers that take any key. */
const keylessProviders = new Set(["ollama", "lmstudio", "vllm"]);

function positiveInteger(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new LlmConfigError(
      name,
      `${name} must be a whole number of ${name.endsWith("MS") ? "milliseconds" : "retries"} (got "${raw}")`,
    );
  }
  return value;
}

/**
 * Reads `LLM_MODEL=<provider>/<model>`, `LLM_API_KEY`, `LLM_BASE_URL`, `LLM_TIMEOUT_MS` and
 * `LLM_MAX_RETRIES`. Returns undefined when `LLM_MODEL` is not set (use the offline brain).
 * @throws LlmConfigError naming the variable to fix.
 */
export function readLlmSettings(
  env: Readonly<Record<string, string | undefined>>,
): LlmSettings | undefined {
  const spec = env.LLM_MODEL?.trim();
  if (!spec) return undefined;
  const slash = spec.indexOf("/");
  if (slash <= 0 || slash === spec.length - 1) {
    throw new LlmConfigError(
      "LLM_MODEL",
      `LLM_MODEL must be <provider>/<model>, e.g. openai/gpt-4o-mini or ollama/llama3.1 (got "${spec}")`,
    );
  }
  const provider = spec.slice(0, slash).toLowerCase();
  const model = spec.slice(slash + 1);
  const baseURL = env.LLM_BASE_URL?.trim() || knownBaseUrls[provider];
  if (baseURL === undefined) {
    throw new LlmConfigError(
      "LLM_BASE_URL",
      `unknown provider "${provider}": set LLM_BASE_URL to its OpenAI-compatible URL (known: ${Object.keys(knownBaseUrls).join(", ")})`,
    );
  }
  if (!/^https?:\/\//.test(baseURL)) {
    throw new LlmConfigError(
      "LLM_BASE_URL",
      `LLM_BASE_URL must be an http(s) URL (got "${baseURL}")`,
    );
  }
  const apiKey =
    env.LLM_API_KEY?.trim() || (keylessProviders.has(provider) ? "not-needed" : undefined);
  if (apiKey === undefined) {
    throw new LlmConfigError("LLM_API_KEY", `LLM_MODEL=${spec} needs an API key: set LLM_API_KEY`);
  }
  return {
    provider,
    model,
    apiKey,
    baseURL,
    timeoutMs: positiveInteger(env, "LLM_TIMEOUT_MS", 60_000),
    maxRetries: positiveInteger(env, "LLM_MAX_RETRIES", 2),
  };
}
