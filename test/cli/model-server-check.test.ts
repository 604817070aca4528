import { afterEach, describe, expect, it } from "vitest";
import { checkModelServer } from "../../src/cli/model-server-check.js";
import { LlmAuthError } from "../../src/llm/errors/llm-auth-error.js";
import { LlmConnectionError } from "../../src/llm/errors/llm-connection-error.js";
import { startFakeOpenAiServer } from "../llm/support/fake-openai-server.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A loopback URL where nothing listens: a server started and closed again. */
async function closedPortUrl(): Promise<string> {
  const server = await startFakeOpenAiServer(() => ({ kind: "status", status: 500 }));
  await server.close();
  return server.url;
}

function llmEnv(url: string) {
  return { LLM_MODEL: "openai/test-model", LLM_API_KEY: "sk-test", LLM_BASE_URL: url };
}

describe("checkModelServer", () => {
  it("does nothing without LLM_MODEL (the offline brain needs no server)", async () => {
    const calls: string[] = [];
    const fetch: typeof globalThis.fetch = async (input) => {
      calls.push(String(input));
      return new Response("{}");
    };
    await checkModelServer({}, { fetch });
    expect(calls).toEqual([]);
  });

  it("passes when the server answers at all (the fake OpenAI server)", async () => {
    const server = await startFakeOpenAiServer(() => ({ kind: "json", content: {} }));
    closers.push(() => server.close());
    await expect(checkModelServer(llmEnv(server.url))).resolves.toBeUndefined();
    // One GET of <base URL>/models, with the key.
    expect(server.received).toHaveLength(1);
    expect(server.received[0]?.authorization).toBe("Bearer sk-test");
  });

  it("passes on a 404 too: not every OpenAI-compatible server lists models", async () => {
    const server = await startFakeOpenAiServer(() => ({ kind: "status", status: 404 }));
    closers.push(() => server.close());
    await expect(checkModelServer(llmEnv(server.url))).resolves.toBeUndefined();
  });

  it("names the URL of a closed loopback port in one line", async () => {
    const url = await closedPortUrl();
    const error = await checkModelServer(llmEnv(url)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmConnectionError);
    const message = (error as LlmConnectionError).message;
    expect(message).toContain(`cannot reach the model server at ${url} (`);
    expect(message).toContain("ECONNREFUSED");
    expect(message).not.toContain("\n");
  });

  it("names the URL when the server never answers", async () => {
    const server = await startFakeOpenAiServer(() => ({ kind: "hang" }));
    closers.push(() => server.close());
    const error = await checkModelServer(llmEnv(server.url), { timeoutMs: 50 }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(LlmConnectionError);
    expect((error as LlmConnectionError).message).toContain(
      `cannot reach the model server at ${server.url} (no answer within 0.05 s)`,
    );
  });

  it("refuses a rejected key before any agent would spend a call on it", async () => {
    const server = await startFakeOpenAiServer(() => ({ kind: "status", status: 401 }));
    closers.push(() => server.close());
    await expect(checkModelServer(llmEnv(server.url))).rejects.toBeInstanceOf(LlmAuthError);
  });

  it("ends with the caller's reason when the user stops it", async () => {
    const server = await startFakeOpenAiServer(() => ({ kind: "hang" }));
    closers.push(() => server.close());
    const controller = new AbortController();
    const reason = new Error("stopped");
    const checking = checkModelServer(llmEnv(server.url), { signal: controller.signal });
    controller.abort(reason);
    await expect(checking).rejects.toBe(reason);
  });
});
