import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { SharedState } from "../../src/crdt/shared-state.js";
import { sharedContextTools } from "../../src/integrations/ai-sdk-tools.js";
import type { CheckSharedDecisionsResult } from "../../src/integrations/tool-results.js";
import { SyncedStore } from "../../src/langgraph.js";
import { plannersDisagree } from "../support/fixtures/planners-disagree.js";
import { disputeTripBudget } from "../support/shared-context-tools.js";
import { textStep, toolCallsStep } from "./support/model-steps.js";
import { startToolCallingModelServer } from "./support/tool-calling-model-server.js";

const subjectId = "repo-auth";

describe("sharedContextTools", () => {
  let store: EmbeddedStore;
  let state: SharedState;
  let shared: SharedContext;

  beforeEach(async () => {
    store = new EmbeddedStore({ path: ":memory:" });
    state = await SharedState.open({ store, subjectId, agentId: "coder" });
    shared = new SharedContext({ store, subjectId, state });
  });

  afterEach(async () => {
    await shared.close();
    await state.close();
    await store.close();
  });

  it("offers both tools to the model with their input schemas", async () => {
    const model = new MockLanguageModelV3({ doGenerate: [textStep("nothing to do")] });

    await generateText({
      model,
      tools: sharedContextTools(shared, { callerId: "coder" }),
      prompt: "Add login",
    });

    const tools = model.doGenerateCalls[0]?.tools ?? [];
    expect(tools.map((offered) => offered.name).sort()).toEqual([
      "check_shared_decisions",
      "get_decision_history",
      "publish_decision",
      "retract_decision",
    ]);
    const publish = tools.find((offered) => offered.name === "publish_decision");
    // Every key required (strict providers' rule); the optional ones accept null.
    expect(publish?.type === "function" && publish.inputSchema).toMatchObject({
      type: "object",
      required: [
        "content",
        "kind",
        "target",
        "confidence",
        "supersedes",
        "effect",
        "replacement",
        "authority",
        "idempotencyKey",
      ],
      additionalProperties: false,
    });
  });

  it("publishes the effect the model sets, for the edit hooks to enforce", async () => {
    const tools = sharedContextTools(shared, { callerId: "coder" });
    const result = await tools.publish_decision.execute?.(
      {
        content: "Billing moves",
        kind: null,
        target: "legacy-billing",
        confidence: null,
        supersedes: null,
        effect: "replace",
        replacement: "invoices",
        authority: null,
        idempotencyKey: null,
      },
      { toolCallId: "call-1", messages: [] },
    );
    expect(result).toMatchObject({
      memories: [{ target: "legacy-billing", effect: "replace", replacement: "invoices" }],
    });
  });

  it("lets the model read another agent's decision before acting, then publish its own", async () => {
    await shared.decide("planner", "Deprecate legacy-session-token; use JWT", {
      kind: "architectural_decision",
      target: "legacy-session-token",
    });
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallsStep([
          { toolName: "check_shared_decisions", input: { task: "build the login endpoint" } },
        ]),
        toolCallsStep([
          {
            toolName: "publish_decision",
            input: {
              content: "Login issues a JWT; no session tokens",
              kind: "implementation_note",
              target: "login-endpoint",
              confidence: 0.8,
            },
          },
        ]),
        textStep("done"),
      ],
    });

    const result = await generateText({
      model,
      tools: sharedContextTools(shared, { callerId: "coder" }),
      stopWhen: stepCountIs(5),
      prompt: "Build the login endpoint",
    });

    expect(result.text).toBe("done");
    expect(model.doGenerateCalls).toHaveLength(3);

    // What the check returned is what the model saw on its next call.
    const checked = result.steps[0]?.toolResults[0];
    expect(checked?.toolName).toBe("check_shared_decisions");
    expect(JSON.stringify(checked?.output)).toContain("Deprecate legacy-session-token");
    expect(JSON.stringify(model.doGenerateCalls[1]?.prompt)).toContain(
      "Deprecate legacy-session-token",
    );

    // The published note is in the store, attributed to the caller, compiled into a memory.
    const timeline = await store.getTimeline(subjectId);
    const published = timeline.episodes.find(
      (episode) => episode.payload.content === "Login issues a JWT; no session tokens",
    );
    expect(published).toMatchObject({ source: "coder", type: "implementation_note" });
    const notes = await store.searchMemories(subjectId, { kind: "implementation_note" });
    expect(notes.map((memory) => memory.content)).toContain(
      "Login issues a JWT; no session tokens",
    );

    const publishResult = result.steps[1]?.toolResults[0];
    expect(publishResult?.output).toMatchObject({
      episodeId: published?.id,
      memories: [{ kind: "implementation_note", content: "Login issues a JWT; no session tokens" }],
    });
  });

  it("publishes as an architectural decision when the model names no kind", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallsStep([{ toolName: "publish_decision", input: { content: "Use Postgres 16" } }]),
        textStep("ok"),
      ],
    });

    await generateText({
      model,
      tools: sharedContextTools(shared, { callerId: "planner" }),
      stopWhen: stepCountIs(3),
      prompt: "Pick a database",
    });

    const decisions = await store.searchMemories(subjectId, { kind: "architectural_decision" });
    expect(decisions.map((memory) => memory.content)).toEqual(["Use Postgres 16"]);
  });

  it("shows a caller what changed since its last read", async () => {
    const tools = sharedContextTools(shared, { callerId: "coder" });
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallsStep([{ toolName: "check_shared_decisions", input: { task: "login" } }]),
        textStep("first"),
        toolCallsStep([{ toolName: "check_shared_decisions", input: { task: "login" } }]),
        textStep("second"),
      ],
    });

    await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: "first look" });
    await shared.decide("planner", "Tokens expire after 15 minutes", {
      kind: "architectural_decision",
      target: "token-lifetime",
    });
    const second = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: "again" });

    expect(second.steps[0]?.toolResults[0]?.output).toMatchObject({
      changedSinceLastRead: [{ content: "Tokens expire after 15 minutes" }],
    });
  });
});

describe("sharedContextTools with a model that makes real tool calls (loopback OpenAI server)", () => {
  let store: EmbeddedStore;
  let state: SharedState;
  let shared: SharedContext;
  let server: Awaited<ReturnType<typeof startToolCallingModelServer>> | undefined;

  beforeEach(async () => {
    store = new EmbeddedStore({ path: ":memory:" });
    state = await SharedState.open({ store, subjectId, agentId: "coder" });
    shared = new SharedContext({ store, subjectId, state });
  });

  afterEach(async () => {
    await server?.close();
    await shared.close();
    await state.close();
    await store.close();
  });

  /** Runs one agent turn: the model checks the shared decisions, then answers. */
  async function checkAsModel(callerId: string, options: { withState?: boolean } = {}) {
    server = await startToolCallingModelServer([
      { toolCalls: [{ name: "check_shared_decisions", arguments: { task: "build the cache" } }] },
      { text: "done" },
    ]);
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: "test" }).chat("loopback");
    const result = await generateText({
      model,
      tools: sharedContextTools(shared, { callerId, ...(options.withState ? { state } : {}) }),
      stopWhen: stepCountIs(3),
      prompt: "Build the cache",
    });
    const toolMessage = server.requests[1]?.find((message) => message.role === "tool");
    await server.close();
    server = undefined;
    return {
      output: result.steps[0]?.toolResults[0]?.output as CheckSharedDecisionsResult,
      seenByModel: String(toolMessage?.content),
    };
  }

  it("lists a dispute with both sides and their authors, first thing in what the model reads", async () => {
    // Two planners decide on legacy-cache without having read each other: neither supersedes.
    await plannersDisagree(shared, "legacy-cache");

    const { output, seenByModel } = await checkAsModel("coder");

    expect(output.disputes).toEqual([
      expect.objectContaining({
        id: "decisions/architectural_decision/legacy-cache",
        namespace: "decisions",
        key: "legacy-cache",
        reason: "contradicting-decisions",
        contenders: [
          expect.objectContaining({ agentId: "planner-a", value: "Deprecate legacy-cache" }),
          expect.objectContaining({ agentId: "planner-b", value: "Keep legacy-cache" }),
        ],
      }),
    ]);
    expect(output.decisions.map(({ author, disputed }) => ({ author, disputed }))).toEqual(
      expect.arrayContaining([
        { author: "planner-a", disputed: "decisions/architectural_decision/legacy-cache" },
        { author: "planner-b", disputed: "decisions/architectural_decision/legacy-cache" },
      ]),
    );
    // The text the model got starts with the dispute, naming both sides and who holds them.
    const firstLines = seenByModel.split("\n").slice(0, 2).join("\n");
    expect(firstLines).toContain("1 open dispute");
    expect(firstLines).toContain('planner-a: "Deprecate legacy-cache"');
    expect(firstLines).toContain('planner-b: "Keep legacy-cache"');
  });

  it("marks a decision the caller read as superseded, naming what replaced it", async () => {
    await shared.decide("planner", "Cache in Redis", {
      kind: "architectural_decision",
      target: "cache",
    });
    const first = await checkAsModel("coder");
    expect(first.output.summary).toMatch(/^No open disputes/);

    await shared.beforeActing("planner", "revisit the cache");
    await shared.decide("planner", "Cache in memory, no Redis", {
      kind: "architectural_decision",
      target: "cache",
    });
    const { output, seenByModel } = await checkAsModel("coder");

    expect(output.decisions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ content: "Cache in memory, no Redis", status: "active" }),
        expect.objectContaining({
          content: "Cache in Redis",
          status: "superseded",
          supersededBy: expect.objectContaining({
            author: "planner",
            content: "Cache in memory, no Redis",
          }),
        }),
      ]),
    );
    expect(seenByModel.split("\n").slice(0, 2).join("\n")).toContain(
      '"Cache in Redis" (cache) superseded by planner: "Cache in memory, no Redis"',
    );
  });

  it("lists a LangGraph store item's dispute too, given the state replica", async () => {
    const synced = await SyncedStore.open({ store, subjectId });
    try {
      await disputeTripBudget(synced);
      const [escalation] = await synced.escalations();

      const { output, seenByModel } = await checkAsModel("coder", { withState: true });
      expect(output.disputes).toEqual([JSON.parse(JSON.stringify(escalation))]);
      const disputeLine = seenByModel.split("\n")[1];
      expect(disputeLine).toContain("flights: 900");
      expect(disputeLine).toContain("hotels: 1200");
    } finally {
      await synced.close();
    }
  });
});
