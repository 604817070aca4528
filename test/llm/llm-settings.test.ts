import { describe, expect, it } from "vitest";
import { LlmConfigError } from "../../src/llm/errors/llm-config-error.js";
import { readLlmSettings } from "../../src/llm/llm-settings.js";

describe("readLlmSettings", () => {
  it("is undefined without LLM_MODEL (the offline brain is used)", () => {
    expect(readLlmSettings({})).toBeUndefined();
  });

  it("reads provider/model, key and the known base URL", () => {
    expect(readLlmSettings({ LLM_MODEL: "groq/llama-3.1-8b-instant", LLM_API_KEY: "k" })).toEqual({
      provider: "groq",
      model: "llama-3.1-8b-instant",
      apiKey: "k",
      baseURL: "https://api.groq.com/openai/v1",
      timeoutMs: 60_000,
      maxRetries: 2,
    });
  });

  it("needs no key for a local server", () => {
    expect(readLlmSettings({ LLM_MODEL: "ollama/llama3.1" })?.baseURL).toBe(
      "http://localhost:11434/v1",
    );
  });

  it.each([
    [{ LLM_MODEL: "gpt-4o" }, "LLM_MODEL"],
    [{ LLM_MODEL: "openai/gpt-4o-mini" }, "LLM_API_KEY"],
    [{ LLM_MODEL: "acme/model", LLM_API_KEY: "k" }, "LLM_BASE_URL"],
    [{ LLM_MODEL: "openai/x", LLM_API_KEY: "k", LLM_TIMEOUT_MS: "soon" }, "LLM_TIMEOUT_MS"],
  ])("names the variable to fix for %j", (env, variable) => {
    let caught: unknown;
    try {
      readLlmSettings(env);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LlmConfigError);
    expect((caught as LlmConfigError).variable).toBe(variable);
    expect((caught as LlmConfigError).message).toContain(variable);
  });
});
