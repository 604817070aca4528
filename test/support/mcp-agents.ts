import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectMcpAgent, type McpAgent } from "../integrations/mcp-client.js";

/** Two MCP agents in two processes on one database, and how to stop them. */
export interface McpAgentPair {
  readonly alice: McpAgent;
  readonly bob: McpAgent;
  /** The database both servers open, in a folder of its own. */
  readonly dbPath: string;
  /** Stops both servers, then removes the folder. */
  close(): Promise<void>;
}

/**
 * Starts `shared-ctx mcp` twice, as agents alice and bob on subject `repo`, over one database in a
 * fresh temporary folder named from `prefix`.
 */
export async function connectMcpAgentPair(prefix: string): Promise<McpAgentPair> {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  const dbPath = join(folder, "store.db");
  const [alice, bob] = await Promise.all([
    connectMcpAgent({ subjectId: "repo", agentId: "alice", dbPath }),
    connectMcpAgent({ subjectId: "repo", agentId: "bob", dbPath }),
  ]);
  // Both servers ready before any test writes: `initialize` is answered before a server opens its
  // replica (start-up), and a replica opened after the other agent's write starts from it, so
  // writes the tests mean to be concurrent would not be. Any other request waits for the replica.
  await Promise.all([alice.client.listTools(), bob.client.listTools()]);
  return {
    alice,
    bob,
    dbPath,
    async close() {
      await Promise.all([alice.close(), bob.close()]);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
