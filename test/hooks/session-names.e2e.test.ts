import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectMcpAgent, type McpAgent } from "../integrations/mcp-client.js";
import { useTempDir } from "../support/temp-dir.js";
import { editPayload, makeRepository, runHookCli } from "./hook-harness.js";

/**
 * One name per session across MCP and hooks: without SHARED_CTX_AGENT, Claude Code gives a session's
 * stdio MCP server `CLAUDE_CODE_SESSION_ID` and its hooks the same id as `session_id`; both sides
 * name the session by it, so two unnamed sessions stay two authors, each recognised as itself.
 */
describe("two unnamed sessions, each with its MCP server and its hooks", () => {
  const tempDir = useTempDir("shared-ctx-session-names-");
  const servers: McpAgent[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  /** A session's MCP server as Claude Code starts it: no --agent, --subject or --db. */
  async function sessionServer(root: string, sessionId: string): Promise<McpAgent> {
    const server = await connectMcpAgent({
      env: {
        // A session started in a subfolder: the server still finds the repository's store.
        CLAUDE_PROJECT_DIR: join(root, "src"),
        CLAUDE_CODE_SESSION_ID: sessionId,
        SHARED_CTX_AGENT: undefined,
        SHARED_CTX_DB: undefined,
        SHARED_CTX_SUBJECT: undefined,
      },
    });
    servers.push(server);
    return server;
  }

  const preEdit = (root: string, sessionId: string, file: string) =>
    runHookCli(["hook", "pre-tool-use"], {
      stdin: JSON.stringify(editPayload("PreToolUse", sessionId, root, file)),
      env: { CLAUDE_PROJECT_DIR: root },
    });

  it("keep their own names: a session's decision is its own at its edits, and binds the other", async () => {
    const root = makeRepository(tempDir(), ["src/legacy-billing/a.ts", "src/invoices/b.ts"]);
    const [one, two] = await Promise.all([
      sessionServer(root, "session-one"),
      sessionServer(root, "session-two"),
    ]);
    const first = await one.call("publish_decision", {
      content: "Retire legacy-billing",
      target: "legacy-billing",
      effect: "retire",
    });
    const second = await two.call("publish_decision", {
      content: "Retire invoices",
      target: "invoices",
      effect: "retire",
    });
    const authorOf = (result: Record<string, unknown>) =>
      (result.memories as Array<{ author: string; effect?: string }>)[0];
    expect(authorOf(first)).toMatchObject({ author: "session-one", effect: "retire" });
    expect(authorOf(second)).toMatchObject({ author: "session-two", effect: "retire" });

    // Each retires its own module for the other, never for itself.
    const decisionOf = async (sessionId: string, file: string) =>
      (await preEdit(root, sessionId, file)).output?.hookSpecificOutput?.permissionDecision;
    expect(await decisionOf("session-one", "src/legacy-billing/a.ts")).toBeUndefined();
    expect(await decisionOf("session-two", "src/legacy-billing/a.ts")).toBe("deny");
    expect(await decisionOf("session-two", "src/invoices/b.ts")).toBeUndefined();
    expect(await decisionOf("session-one", "src/invoices/b.ts")).toBe("deny");
  }, 60_000);

  it("a replace without its replacement is refused by the tool, naming the field", async () => {
    const root = makeRepository(tempDir(), ["src/legacy-billing/a.ts"]);
    const one = await sessionServer(root, "session-one");
    await expect(
      one.call("publish_decision", {
        content: "Replace legacy-billing",
        target: "legacy-billing",
        effect: "replace",
      }),
    ).rejects.toThrow(/replacement/);
  }, 60_000);
});
