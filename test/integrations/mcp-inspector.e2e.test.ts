import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpToolNames } from "../support/shared-context-tools.js";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const runCli = fileURLToPath(new URL("./fixtures/run-cli.ts", import.meta.url));
/** The MCP inspector's own CLI (`@modelcontextprotocol/inspector` 0.15.0, which runs on Node 20). */
const inspector = join(
  repoRoot,
  "node_modules",
  "@modelcontextprotocol",
  "inspector",
  "cli",
  "build",
  "cli.js",
);

/**
 * `shared-ctx mcp` driven by the MCP inspector's CLI, a client we did not write: each call starts
 * the server over stdio, as a coding agent's MCP client does, makes one request and prints the result.
 */
describe("shared-ctx mcp under the MCP inspector's CLI", () => {
  let folder: string;
  let dbPath: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), "shared-ctx-inspector-"));
    dbPath = join(folder, "store.db");
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  async function inspect(args: readonly string[]): Promise<Record<string, unknown>> {
    const server = [
      process.execPath,
      "--import",
      "tsx",
      runCli,
      "mcp",
      "--subject",
      "repo",
      "--agent",
      "inspector",
      "--db",
      dbPath,
    ];
    const { stdout } = await run(process.execPath, [inspector, "--cli", ...server, ...args], {
      cwd: repoRoot,
      timeout: 60_000,
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  it("lists every tool with its title and annotations, and the decisions resource", async () => {
    const listed = (await inspect(["--method", "tools/list"])) as {
      tools: Array<{ name: string; title?: string; annotations?: Record<string, unknown> }>;
    };
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(mcpToolNames);
    for (const tool of listed.tools) {
      expect(tool.title, tool.name).toEqual(expect.any(String));
      expect(tool.annotations?.readOnlyHint, tool.name).toEqual(expect.any(Boolean));
    }
    const resources = (await inspect(["--method", "resources/list"])) as {
      resources: Array<{ uri: string }>;
    };
    expect(resources.resources.map((resource) => resource.uri)).toEqual([
      "shared-ctx://subjects/repo/decisions",
    ]);
  }, 240_000);

  it("calls every tool and reads the resource", async () => {
    const call = (name: string, ...toolArgs: string[]) =>
      inspect([
        "--method",
        "tools/call",
        "--tool-name",
        name,
        ...(toolArgs.length > 0 ? ["--tool-arg", ...toolArgs] : []),
      ]);

    const published = (await call(
      "publish_decision",
      "content=Use JWT for sessions",
      "target=sessions",
    )) as {
      structuredContent: { episodeId: string; memories: Array<{ id: string }> };
    };
    expect(published.structuredContent.episodeId).toEqual(expect.any(String));
    const memoryId = published.structuredContent.memories[0]?.id ?? "";
    const checked = (await call("check_shared_decisions", "task=sessions")) as {
      structuredContent: { decisions: Array<{ content: string }> };
    };
    expect(checked.structuredContent.decisions.map((decision) => decision.content)).toContain(
      "Use JWT for sessions",
    );
    const put = (await call("put_state", "namespace=plan", "key=region", "value=eu")) as {
      structuredContent: { value: unknown };
    };
    expect(put.structuredContent.value).toBe("eu");
    const read = (await call("get_state", "namespace=plan", "key=region")) as {
      structuredContent: { value: unknown };
    };
    expect(read.structuredContent.value).toBe("eu");
    const keyOnly = (await call("get_state", "key=region")) as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    expect(keyOnly.isError).toBe(true);
    expect(keyOnly.content[0]?.text).toContain('"key" needs a "namespace"');
    // No limit: inspector 0.15's CLI turns an argument into a number only for a plain
    // `"type": "integer"`, and `limit` is "integer or null" (strict providers' optional).
    const timeline = (await call("get_timeline")) as {
      structuredContent: { episodes: unknown[] };
    };
    expect(timeline.structuredContent.episodes.length).toBeGreaterThan(0);
    const resolve = (await call("resolve_escalation", "escalationId=none", "value=1")) as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    expect(resolve.isError).toBe(true);
    expect(resolve.content[0]?.text).toContain("no escalation none on this subject");
    const retracted = (await call(
      "retract_decision",
      `memoryId=${memoryId}`,
      "reason=cookies instead",
    )) as { structuredContent: { memories: Array<{ content: string }> } };
    expect(retracted.structuredContent.memories[0]?.content).toContain("Retracted: Use JWT");
    const history = (await call("get_decision_history", `memoryId=${memoryId}`)) as {
      structuredContent: { status: string; supersededBy?: { agentId: string } };
    };
    expect(history.structuredContent).toMatchObject({
      status: "retracted",
      supersededBy: { agentId: "inspector" },
    });

    const resource = (await inspect([
      "--method",
      "resources/read",
      "--uri",
      "shared-ctx://subjects/repo/decisions",
    ])) as { contents: Array<{ text: string }> };
    // Retracted: the resource lists no active decision (the retraction stands for none).
    expect(JSON.parse(resource.contents[0]?.text ?? "{}").decisions).toEqual([]);
  }, 240_000);
});
