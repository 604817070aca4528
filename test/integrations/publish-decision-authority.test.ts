import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { sharedContextTools } from "../../src/integrations/ai-sdk-tools.js";
import { openSharedContextMcpServer } from "../../src/integrations/mcp-server.js";
import type { CheckSharedDecisionsResult } from "../../src/integrations/tool-results.js";
import { linkMcpClient } from "./support/in-memory-mcp.js";

/** `publish_decision`'s `authority`: a person's decision stands against an agent's informed one. */
describe("publish_decision authority", () => {
  const closing: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  async function mcpAgent(store: EmbeddedStore, agentId: string) {
    const session = await openSharedContextMcpServer({ store, subjectId: "repo", agentId });
    const client = await linkMcpClient(session, agentId);
    closing.push(async () => {
      await client.close();
      await session.close();
    });
    return async (name: string, input: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: input });
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      return result.structuredContent as Record<string, unknown>;
    };
  }

  function openStore(): EmbeddedStore {
    const store = new EmbeddedStore({ path: ":memory:" });
    closing.push(() => store.close());
    return store;
  }

  it("over MCP: an agent's informed decision disputes a person's, both shown with authority; a person settles it", async () => {
    const store = openStore();
    const alice = await mcpAgent(store, "alice");
    const planner = await mcpAgent(store, "planner");
    const published = await alice("publish_decision", {
      content: "Sessions stay server-side",
      target: "session-storage",
      authority: "user",
    });
    expect(published.memories).toEqual([expect.objectContaining({ authority: "user" })]);

    const read = (await planner("check_shared_decisions", {
      task: "session storage",
    })) as unknown as CheckSharedDecisionsResult;
    expect(read.decisions.map((decision) => decision.content)).toEqual([
      "Sessions stay server-side",
    ]);
    const guess = await planner("publish_decision", {
      content: "Move session state into signed JWT cookies",
      target: "session-storage",
    });
    expect(guess.memories).toEqual([expect.not.objectContaining({ authority: expect.anything() })]);

    const disputed = (await planner("check_shared_decisions", {
      task: "session storage",
    })) as unknown as CheckSharedDecisionsResult;
    expect(disputed.disputes).toHaveLength(1);
    expect(
      disputed.disputes[0]?.contenders.map((side) => [side.agentId, side.authority ?? "agent"]),
    ).toEqual([
      ["alice", "user"],
      ["planner", "agent"],
    ]);
    expect(disputed.summary).toContain('alice (user): "Sessions stay server-side"');
    expect(disputed.summary).toContain("only a decision of authority user or higher");

    await alice("check_shared_decisions", { task: "session storage" });
    await alice("publish_decision", {
      content: "Keep server-side sessions; revisit JWT next quarter",
      target: "session-storage",
      authority: "user",
    });
    const settled = (await planner("check_shared_decisions", {
      task: "session storage",
    })) as unknown as CheckSharedDecisionsResult;
    expect(settled.disputes).toEqual([]);
    expect(
      settled.decisions
        .filter((decision) => decision.status === "active")
        .map((decision) => decision.content),
    ).toEqual(["Keep server-side sessions; revisit JWT next quarter"]);
  });

  it("over MCP: refuses an authority that is not a class, naming the field", async () => {
    const store = openStore();
    const alice = await mcpAgent(store, "alice");
    await expect(
      alice("publish_decision", { content: "x", target: "y", authority: "boss" }),
    ).rejects.toThrow(/authority/);
  });

  it("in the AI SDK tool: passes the authority to the decision", async () => {
    const store = openStore();
    const shared = new SharedContext({ store, subjectId: "repo" });
    closing.push(() => shared.close());
    const tools = sharedContextTools(shared, { callerId: "alice" });
    const result = await tools.publish_decision.execute?.(
      { content: "Sessions stay server-side", target: "session-storage", authority: "user" },
      { toolCallId: "call-1", messages: [] },
    );
    expect(result).toMatchObject({ memories: [{ authority: "user", author: "alice" }] });
    const [memory] = await store.searchMemories("repo", { kind: "architectural_decision" });
    expect(memory?.metadata.authority).toBe("user");
  });
});
