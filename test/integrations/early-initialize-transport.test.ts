import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type JSONRPCMessage, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { EarlyInitializeTransport } from "../../src/integrations/early-initialize-transport.js";
import {
  openSharedContextMcpServer,
  type SharedContextMcpSession,
} from "../../src/integrations/mcp-server.js";
import { sharedContextServerInfo } from "../../src/integrations/mcp-server-info.js";
import { mcpToolNames } from "../../src/integrations/tool-names.js";
import { linkMcpClient } from "./support/in-memory-mcp.js";

const who = { subjectId: "early-subject", agentId: "agent-a", version: "1.2.3" };

/** What a client is answered to `initialize` by the real server, connected directly. */
async function directAnswer(session: SharedContextMcpSession) {
  const client = await linkMcpClient(session, "direct");
  const answer = {
    capabilities: client.getServerCapabilities(),
    serverInfo: client.getServerVersion(),
    instructions: client.getInstructions(),
  };
  await client.close();
  return answer;
}

describe("EarlyInitializeTransport: initialize answered before the server exists", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function openSession(): Promise<SharedContextMcpSession> {
    const store = new EmbeddedStore({ path: ":memory:" });
    closers.push(() => store.close());
    const session = await openSharedContextMcpServer({ store, ...who });
    closers.push(() => session.close());
    return session;
  }

  it("answers as the real server would, then hands every request to it once connected", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const sent: JSONRPCMessage[] = [];
    const send = serverSide.send.bind(serverSide);
    serverSide.send = (message, options) => {
      sent.push(message);
      return send(message, options);
    };
    const transport = new EarlyInitializeTransport(serverSide, sharedContextServerInfo(who));
    await transport.listen();
    const client = new Client({ name: "early", version: "0.0.0" });
    closers.push(() => client.close());
    // Connects (initialize answered) while no server is there yet.
    await client.connect(clientSide);
    const early = {
      capabilities: client.getServerCapabilities(),
      serverInfo: client.getServerVersion(),
      instructions: client.getInstructions(),
    };
    const listed = client.listTools();

    const session = await openSession();
    await session.server.connect(transport);
    const tools = await listed;
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual([...mcpToolNames].sort());
    // One answer to initialize reached the client: the server's own answer to the replay is not sent.
    expect(sent.filter((message) => "id" in message && message.id === 0)).toHaveLength(1);
    expect(early).toEqual(await directAnswer(await openSession()));
  });

  it("takes the client's protocol version when supported, else the SDK's latest", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const answers: JSONRPCMessage[] = [];
    clientSide.onmessage = (message) => answers.push(message);
    await clientSide.start();
    const transport = new EarlyInitializeTransport(serverSide, sharedContextServerInfo(who));
    await transport.listen();
    const initialize = (id: number, protocolVersion: string) =>
      clientSide.send({
        jsonrpc: "2.0",
        id,
        method: "initialize",
        params: { protocolVersion, capabilities: {}, clientInfo: { name: "c", version: "0" } },
      });
    await initialize(1, "2024-11-05");
    await expect.poll(() => answers.length).toBe(1);
    expect(answers[0]).toMatchObject({ id: 1, result: { protocolVersion: "2024-11-05" } });

    const [otherClient, otherServer] = InMemoryTransport.createLinkedPair();
    const otherAnswers: JSONRPCMessage[] = [];
    otherClient.onmessage = (message) => otherAnswers.push(message);
    await otherClient.start();
    await new EarlyInitializeTransport(otherServer, sharedContextServerInfo(who)).listen();
    await otherClient.send({
      jsonrpc: "2.0",
      id: 7,
      method: "initialize",
      params: {
        protocolVersion: "1999-01-01",
        capabilities: {},
        clientInfo: { name: "c", version: "0" },
      },
    });
    await expect.poll(() => otherAnswers.length).toBe(1);
    expect(otherAnswers[0]).toMatchObject({
      id: 7,
      result: { protocolVersion: LATEST_PROTOCOL_VERSION },
    });
  });

  it("leaves a malformed initialize to the server (no early answer)", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const answers: JSONRPCMessage[] = [];
    clientSide.onmessage = (message) => answers.push(message);
    await clientSide.start();
    const transport = new EarlyInitializeTransport(serverSide, sharedContextServerInfo(who));
    await transport.listen();
    await clientSide.send({ jsonrpc: "2.0", id: 3, method: "initialize", params: {} });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answers).toEqual([]);
    const session = await openSession();
    await session.server.connect(transport);
    await expect.poll(() => answers.length).toBe(1);
    expect(answers[0]).toMatchObject({ id: 3, error: {} });
  });
});
