import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { sharedContextTools } from "../../src/integrations/ai-sdk-tools.js";
import { openSharedContextMcpServer } from "../../src/integrations/mcp-server.js";
import { linkMcpClient } from "./support/in-memory-mcp.js";
import { textStep, toolCallStep } from "./support/model-steps.js";

const subjectId = "repo";
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

async function mcpAgent(store: EmbeddedStore, agentId: string) {
  const session = await openSharedContextMcpServer({ store, subjectId, agentId });
  const client = await linkMcpClient(session, agentId);
  opened.push(session, client);
  return async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    return result as {
      isError?: boolean;
      structuredContent?: Record<string, unknown>;
      content: Array<{ text: string }>;
    };
  };
}

describe("the decision life cycle over MCP", () => {
  it("supersedes by id, retracts, reads the history, and a retried publish stores one episode", async () => {
    const store = new EmbeddedStore({ path: ":memory:" });
    opened.push(store);
    const alice = await mcpAgent(store, "alice");
    const bob = await mcpAgent(store, "bob");

    const strictly = { kind: null, confidence: null, supersedes: null };
    const first = await alice("publish_decision", {
      ...strictly,
      content: "Sessions in Redis",
      target: "sessions",
      idempotencyKey: "alice-1",
    });
    const retry = await alice("publish_decision", {
      ...strictly,
      content: "Sessions in Redis",
      target: "sessions",
      idempotencyKey: "alice-1",
    });
    expect(retry.structuredContent?.episodeId).toBe(first.structuredContent?.episodeId);
    const memoryId = ((first.structuredContent?.memories ?? []) as Array<{ id: string }>)[0]?.id;

    // Bob never read it, and replaces exactly it by id.
    const replaced = await bob("publish_decision", {
      content: "Sessions in Postgres",
      supersedes: memoryId,
    });
    expect(replaced.isError).toBeFalsy();
    const history = await bob("get_decision_history", { memoryId });
    expect(history.structuredContent).toMatchObject({
      status: "superseded",
      author: "alice",
      supersededBy: { agentId: "bob", content: "Sessions in Postgres" },
    });
    const again = await alice("retract_decision", { memoryId, reason: null, idempotencyKey: null });
    expect(again.isError).toBe(true);
    expect(again.content[0]?.text).toContain("no longer active");

    const newId = ((replaced.structuredContent?.memories ?? []) as Array<{ id: string }>)[0]?.id;
    await bob("check_shared_decisions", { task: "sessions" });
    const retracted = await alice("retract_decision", { memoryId: newId, reason: "cookies" });
    expect(retracted.isError).toBeFalsy();
    // Bob had read it: his next check lists it as retracted, by whom, and no active decision.
    const read = await bob("check_shared_decisions", { task: "sessions" });
    expect(read.structuredContent?.decisions).toEqual([
      expect.objectContaining({
        id: newId,
        status: "retracted",
        supersededBy: expect.objectContaining({ author: "alice" }),
      }),
    ]);
    expect(read.structuredContent?.summary).toContain("retracted by alice");
    const timeline = await alice("get_timeline", { limit: null, includeStateUpdates: null });
    const episodes = (
      (timeline.structuredContent?.episodes ?? []) as Array<{ source: string }>
    ).map((episode) => episode.source);
    expect(episodes).toEqual(["alice", "bob", "alice"]);
  });
});

describe("the decision life cycle through the AI SDK tools", () => {
  it("a model retracts a decision and reads its history, with strict-style arguments", async () => {
    const store = new EmbeddedStore({ path: ":memory:" });
    const shared = new SharedContext({ store, subjectId });
    opened.push(store, shared);
    const { memories } = await shared.decide("planner", "Use gRPC", { target: "transport" });
    const memoryId = memories[0]?.id;
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallStep("retract_decision", {
          memoryId,
          reason: "REST is enough",
          idempotencyKey: null,
        }),
        toolCallStep("get_decision_history", { memoryId }),
        textStep("done"),
      ],
    });
    const result = await generateText({
      model,
      tools: sharedContextTools(shared, { callerId: "lead" }),
      stopWhen: stepCountIs(4),
      prompt: "Retract the transport decision",
    });
    const outputs = result.steps.flatMap((step) => step.toolResults);
    const history = outputs.find((output) => output.toolName === "get_decision_history");
    expect(history?.dynamic).not.toBe(true);
    if (history?.toolName !== "get_decision_history" || history.dynamic)
      throw new Error("no history");
    expect(history.output.status).toBe("retracted");
    expect(history.output.supersededBy?.agentId).toBe("lead");
    expect(history.output.events.map((event) => event.type)).toEqual(["written", "retracted"]);
    expect((await shared.beforeActing("coder", "transport")).decisions).toEqual([]);
  });
});
