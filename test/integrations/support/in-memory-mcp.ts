import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { SharedContextMcpSession } from "../../../src/integrations/mcp-server.js";

/**
 * An MCP client linked in memory to a shared-ctx MCP session: the tool tests speak the real
 * protocol to the server without starting a process. The caller closes the client, then the session.
 */
export async function linkMcpClient(
  session: SharedContextMcpSession,
  clientName: string,
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.server.connect(serverSide);
  const client = new Client({ name: clientName, version: "0.0.0" });
  await client.connect(clientSide);
  return client;
}
