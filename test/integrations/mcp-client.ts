import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const runCli = fileURLToPath(new URL("./fixtures/run-cli.ts", import.meta.url));

/** An MCP client connected over stdio to `shared-ctx mcp` running in its own process. */
export interface McpAgent {
  readonly client: Client;
  /** Calls a tool and returns its structured result; throws when the tool reports an error. */
  call(name: string, input: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** What the server wrote to stderr so far (stdout is the protocol). */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Spawns `shared-ctx mcp --subject ... --agent ... --db ...` and connects the MCP SDK client to it.
 * Without `subjectId`, `agentId` or `dbPath`, the flag is left out: the server finds them as it
 * does under Claude Code (the repository from $CLAUDE_PROJECT_DIR, the session's name).
 */
export async function connectMcpAgent(options: {
  subjectId?: string;
  agentId?: string;
  dbPath?: string;
  /** More `shared-ctx mcp` flags (e.g. `--project my-repo`). */
  args?: readonly string[];
  /** Replaces these variables of the server's environment (undefined removes one). */
  env?: Record<string, string | undefined>;
}): Promise<McpAgent> {
  const flags = [
    ...(options.subjectId !== undefined ? ["--subject", options.subjectId] : []),
    ...(options.agentId !== undefined ? ["--agent", options.agentId] : []),
    ...(options.dbPath !== undefined ? ["--db", options.dbPath] : []),
  ];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", runCli, "mcp", ...flags, ...(options.args ?? [])],
    cwd: repoRoot,
    env: Object.fromEntries(
      Object.entries({ ...process.env, ...options.env }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    ),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: `test-${options.agentId ?? "session"}`, version: "0.0.0" });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`shared-ctx mcp did not start: ${String(error)}\n${stderr}`);
  }
  return {
    client,
    async call(name, input) {
      const result = await client.callTool({ name, arguments: input });
      if (result.isError) {
        throw new Error(`${name} failed: ${JSON.stringify(result.content)}\n${stderr}`);
      }
      return result.structuredContent as Record<string, unknown>;
    },
    stderr: () => stderr,
    close: () => client.close(),
  };
}
