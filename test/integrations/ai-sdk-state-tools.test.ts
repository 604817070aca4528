import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { SharedState } from "../../src/crdt/shared-state.js";
import { sharedContextTools } from "../../src/integrations/ai-sdk-tools.js";
import { sharedContextToolNames } from "../support/shared-context-tools.js";
import { textStep, toolCallStep } from "./support/model-steps.js";

const subjectId = "repo-state";

describe("sharedContextTools with a state: the full tool set MCP has", () => {
  let store: EmbeddedStore;
  let state: SharedState;
  let other: SharedState;
  let shared: SharedContext;

  beforeEach(async () => {
    store = new EmbeddedStore({ path: ":memory:" });
    state = await SharedState.open({ store, subjectId, agentId: "coder", live: false });
    other = await SharedState.open({ store, subjectId, agentId: "reviewer", live: false });
    shared = new SharedContext({ store, subjectId, state });
  });

  afterEach(async () => {
    await shared.close();
    await state.close();
    await other.close();
    await store.close();
  });

  it("offers the eight tools, and the model writes, reads, resolves and reads the timeline", async () => {
    // The reviewer set the field without having seen the coder's write: a dispute.
    await other.put("plan", "database", "mysql");
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallStep("put_state", { namespace: "plan", key: "database", value: "postgres" }),
        toolCallStep("get_state", { namespace: "plan", key: "database" }),
        textStep("disputed"),
      ],
    });
    const tools = sharedContextTools(shared, { callerId: "coder", state });
    const result = await generateText({
      model,
      tools,
      stopWhen: stepCountIs(5),
      prompt: "pick a db",
    });

    expect((model.doGenerateCalls[0]?.tools ?? []).map((offered) => offered.name).sort()).toEqual([
      ...sharedContextToolNames,
    ]);
    // Typed outputs: a static tool's result (dynamic !== true) has its tool's output type.
    const read = result.steps
      .flatMap((step) => step.toolResults)
      .find((part) => part.dynamic !== true && part.toolName === "get_state");
    if (read?.toolName !== "get_state") throw new Error("no get_state");
    const [escalation] = read.output.escalations;
    expect(read.output.value).toMatchObject({ disputed: escalation?.id });
    expect(escalation?.contenders.map((contender) => contender.agentId).sort()).toEqual([
      "coder",
      "reviewer",
    ]);

    const resolved = await tools.resolve_escalation.execute?.(
      { escalationId: String(escalation?.id), value: "postgres" },
      { toolCallId: "direct", messages: [] },
    );
    expect(resolved).toMatchObject({ resolution: { value: "postgres", by: "coder" } });
    // Final: a second resolution is refused, naming the first.
    await expect(
      tools.resolve_escalation.execute?.(
        { escalationId: String(escalation?.id), value: "sqlite" },
        { toolCallId: "again", messages: [] },
      ),
    ).rejects.toThrow("was already resolved by coder");
    expect(state.get("plan", "database")).toBe("postgres");

    const timeline = await tools.get_timeline.execute?.(
      { includeStateUpdates: true },
      { toolCallId: "timeline", messages: [] },
    );
    expect(timeline && "episodes" in timeline ? timeline.episodes.length : 0).toBeGreaterThan(0);
  });

  it("hands a refusal to the model as the tool's error (a key without a namespace)", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [toolCallStep("get_state", { key: "database" }), textStep("ok")],
    });
    const result = await generateText({
      model,
      tools: sharedContextTools(shared, { callerId: "coder", state }),
      stopWhen: stepCountIs(3),
      prompt: "read",
    });
    const error = result.steps
      .flatMap((step) => step.content)
      .find((part) => part.type === "tool-error");
    expect(error && "error" in error ? String(error.error) : "").toContain(
      '"key" needs a "namespace"',
    );
  });
});
