import { afterEach, describe, expect, it } from "vitest";
import { createBrainFromEnv } from "../../src/agents/create-brain.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { LlmAuthError } from "../../src/llm/errors/llm-auth-error.js";
import { LlmConnectionError } from "../../src/llm/errors/llm-connection-error.js";
import { LlmOutputError } from "../../src/llm/errors/llm-output-error.js";
import { LlmRequestError } from "../../src/llm/errors/llm-request-error.js";
import { LlmTimeoutError } from "../../src/llm/errors/llm-timeout-error.js";
import { createVirtualClock } from "../../src/scenario/clock.js";
import { loadScenario } from "../../src/scenario/load-scenario.js";
import { startRun } from "../../src/scenario/scenario-runner.js";
import {
  type FakeReply,
  ruleFollowingReply,
  startFakeOpenAiServer,
} from "../llm/support/fake-openai-server.js";
import { closedPort } from "../support/closed-port.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve(reply: Parameters<typeof startFakeOpenAiServer>[0]) {
  const server = await startFakeOpenAiServer(reply);
  closers.push(() => server.close());
  return server;
}

function brainFor(url: string, extra: Record<string, string> = {}) {
  return createBrainFromEnv({
    LLM_MODEL: "openai/test-model",
    LLM_API_KEY: "sk-test",
    LLM_BASE_URL: url,
    ...extra,
  });
}

const step = { agentId: "coder", module: "legacy-cache", decisions: [], disputes: [] };
const buildAnswer: FakeReply = {
  kind: "json",
  content: { action: "build", reason: "needed", causedBy: "" },
};

describe("the LLM brain against an OpenAI-compatible server on loopback", () => {
  it("runs a whole scenario, named after the model, and sends the key", async () => {
    const server = await serve(ruleFollowingReply);
    const store = new EmbeddedStore({ path: ":memory:" });
    closers.push(() => store.close());
    const handle = startRun({
      scenario: await loadScenario("auth-jwt"),
      mode: "naive",
      store,
      brain: brainFor(server.url),
      clock: createVirtualClock(),
      seed: 1,
    });
    const summary = await handle.done;
    expect(summary.brain).toBe("openai/test-model");
    expect(summary.collision).toBe(true);
    expect(summary.wastedModules).toEqual(["legacy-session-token"]);
    expect(new Set(server.received.map((request) => request.schemaName))).toEqual(
      new Set(["planner_decisions", "module_plan", "module_step", "review"]),
    );
    expect(server.received.every((request) => request.authorization === "Bearer sk-test")).toBe(
      true,
    );
    // A model's tokens are what it reported (15 per answer here, the fake server's usage), and
    // its thinking takes real time: the run says it is not reproducible.
    expect(summary.reproducible).toBe(false);
    const builds = summary.totals.tokens - 15 * server.received.length;
    expect(builds % 2600).toBe(0);
    expect(builds).toBeGreaterThan(0);
  });

  it("reports an open dispute whatever the model says about the builds", async () => {
    const server = await serve(ruleFollowingReply);
    const store = new EmbeddedStore({ path: ":memory:" });
    closers.push(() => store.close());
    const handle = startRun({
      // With no lead to rule on it, the dispute stays open for the Reviewer to report.
      scenario: { ...(await loadScenario("disagreeing-planners")), lead: null },
      mode: "statewave",
      store,
      brain: brainFor(server.url),
      clock: createVirtualClock(),
      seed: 1,
    });
    const texts: string[] = [];
    handle.subscribe((event) => {
      if (event.type === "agent-log" && event.agentId === "reviewer") texts.push(event.text);
    });
    const summary = await handle.done;
    expect(summary.collision).toBe(false);
    expect(texts).toContain(
      "Open dispute → legacy-cache: Planner A (deprecate) vs Planner B (keep); needs a decision",
    );
    expect(texts).not.toContain("No conflicts: the work matches the decisions.");
    const reviewPrompt = server.received.find((request) => request.schemaName === "review");
    expect(reviewPrompt?.prompt).toContain('"target": "legacy-cache"');
  });

  it("turns 401 into a clear error naming LLM_API_KEY", async () => {
    const server = await serve(() => ({ kind: "status", status: 401 }));
    const error = await brainFor(server.url)
      .chooseModuleStep(step)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmAuthError);
    expect((error as Error).message).toMatch(/refused the API key \(HTTP 401\): check LLM_API_KEY/);
    expect(server.received).toHaveLength(1);
  });

  it("names the URL it tried and LLM_BASE_URL when nothing listens there", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const error = await brainFor(url, { LLM_MAX_RETRIES: "0" })
      .chooseModuleStep(step)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmConnectionError);
    expect(error).toBeInstanceOf(LlmRequestError);
    expect(error).toMatchObject({ url, variable: "LLM_BASE_URL", statusCode: undefined });
    expect((error as Error).message).toBe(
      `cannot reach the model server at ${url} (${(error as LlmConnectionError).reason}): ` +
        "check LLM_BASE_URL (and LLM_MODEL's provider) and that the server is running",
    );
    expect((error as LlmConnectionError).reason).toContain("ECONNREFUSED");
  });

  it("explains a port fetch refuses to use (the old 'bad port' message)", async () => {
    // 6000 is on the fetch standard's list of bad ports: refused before any connection is made.
    const url = "http://127.0.0.1:6000/v1";
    const error = await brainFor(url, { LLM_MAX_RETRIES: "0" })
      .chooseModuleStep(step)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmConnectionError);
    expect((error as Error).message).toMatch(
      /^cannot reach the model server at http:\/\/127\.0\.0\.1:6000\/v1 \(bad port\): check LLM_BASE_URL/,
    );
  });

  it("retries 429 (honouring retry-after-ms) and then succeeds", async () => {
    const server = await serve((_request, index) =>
      index === 0
        ? { kind: "status", status: 429, headers: { "retry-after-ms": "5" } }
        : buildAnswer,
    );
    await expect(brainFor(server.url).chooseModuleStep(step)).resolves.toEqual({ action: "build" });
    expect(server.received).toHaveLength(2);
  });

  it("gives up on a model that does not answer in time", async () => {
    const server = await serve(() => ({ kind: "hang" }));
    const error = await brainFor(server.url, { LLM_TIMEOUT_MS: "200" })
      .chooseModuleStep(step)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmTimeoutError);
    expect((error as Error).message).toContain("LLM_TIMEOUT_MS");
  });

  it("repairs one malformed answer", async () => {
    const server = await serve((_request, index) =>
      index === 0 ? { kind: "text", content: "Sure! I will build it." } : buildAnswer,
    );
    await expect(brainFor(server.url).chooseModuleStep(step)).resolves.toEqual({ action: "build" });
    expect(server.received).toHaveLength(2);
    expect(server.received[1]?.prompt).toContain("Sure! I will build it.");
    expect(server.received[1]?.prompt).toContain("could not be used");
  });

  it("fails clearly when the repair is malformed too", async () => {
    const server = await serve(() => ({ kind: "json", content: { action: "maybe" } }));
    const error = await brainFor(server.url)
      .chooseModuleStep(step)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmOutputError);
    expect((error as Error).message).toMatch(/malformed module step output twice/);
    expect(server.received).toHaveLength(2);
  });
});
