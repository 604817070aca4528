import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, it } from "vitest";
import { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { openSharedContextMcpServer } from "../../../src/integrations/mcp-server.js";
import { createStatewaveEmulator } from "../../../src/server/compat/statewave-v0-7-1.js";

/** The MCP server over a Statewave v0.7.1 server (emulated): two agents, each with its own store. */
describe("shared-ctx MCP tools on a Statewave v0.7.1 server", () => {
  const closing: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  async function agent(emulator: ReturnType<typeof createStatewaveEmulator>, agentId: string) {
    const store = new StatewaveStore({ fetch: emulator.clientFetch, pollIntervalMs: 5 });
    const session = await openSharedContextMcpServer({ store, subjectId: "repo", agentId });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session.server.connect(serverSide);
    const client = new Client({ name: agentId, version: "0.0.0" });
    await client.connect(clientSide);
    closing.push(async () => {
      await client.close();
      await session.close();
      await store.close();
    });
    return async (name: string, input: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: input });
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      return result.structuredContent as Record<string, unknown>;
    };
  }

  it("finds the other agent's decision and its target, and a reader's later decision supersedes it", async () => {
    const emulator = createStatewaveEmulator();
    const alice = await agent(emulator, "alice");
    const bob = await agent(emulator, "bob");
    const published = await alice("publish_decision", {
      content: "Deprecate legacy-session-token; use JWT",
      target: "legacy-session-token",
    });
    expect(published).toMatchObject({
      memories: [
        { kind: "architectural_decision", content: "Deprecate legacy-session-token; use JWT" },
      ],
    });
    const read = await bob("check_shared_decisions", { task: "rebuild legacy-session-token" });
    expect(read.decisions).toEqual([
      expect.objectContaining({ content: "Deprecate legacy-session-token; use JWT" }),
    ]);
    // Bob has read Alice's decision: his, on the same target, supersedes it (written knowing it).
    await bob("publish_decision", {
      content: "Keep legacy-session-token for mobile",
      target: "legacy-session-token",
    });
    const after = await alice("check_shared_decisions", { task: "legacy-session-token" });
    expect((after.decisions as { content: string }[]).map((decision) => decision.content)).toEqual([
      "Keep legacy-session-token for mobile",
    ]);

    const timeline = await bob("get_timeline", {});
    expect(timeline.episodes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: "alice", type: "architectural_decision" }),
        expect.objectContaining({ source: "bob", type: "architectural_decision" }),
      ]),
    );
  });

  it("escalates a state conflict between the two agents", async () => {
    const emulator = createStatewaveEmulator();
    const alice = await agent(emulator, "alice");
    const bob = await agent(emulator, "bob");
    await alice("put_state", { namespace: "plan", key: "database", value: "postgres" });
    await bob("put_state", { namespace: "plan", key: "database", value: "mysql" });
    const plan = await alice("get_state", { namespace: "plan" });
    expect(plan.fields).toMatchObject({ database: { disputed: expect.any(String) } });
  });
});
