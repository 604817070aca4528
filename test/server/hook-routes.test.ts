import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { type RunningServer, startServer } from "../../src/server/listen.js";
import { makeRepository, runHookCli } from "../hooks/hook-harness.js";
import { useTempDir } from "../support/temp-dir.js";

/** A response's JSON, as loosely typed as the harness reads it. */
// biome-ignore lint/suspicious/noExplicitAny: the hook's JSON as the harness reads it
async function answer(response: Response): Promise<any> {
  return response.json();
}

const fixtures = join(import.meta.dirname, "../hooks/fixtures");

/** The recorded inputs of one harness, `/home/alice/acme` moved to `root`. */
function recorded(harness: string, root: string): Record<string, unknown>[] {
  return readFileSync(join(fixtures, harness, "hook-inputs.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line.replaceAll("/home/alice/acme", root)));
}

describe("serve's hook routes and MCP over HTTP", () => {
  const tempDir = useTempDir("shared-ctx-http-hooks-");
  const running: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close()));
  });

  /** A repository `acme` where session-a retired legacy-billing, served by `serve` over its store. */
  async function served(options: Partial<Parameters<typeof startServer>[0]> = {}) {
    const root = join(tempDir(), "acme");
    makeRepository(root, ["src/legacy-billing/index.ts", "src/payments/index.ts"]);
    const db = join(root, ".shared-ctx", "store.db");
    const store = new EmbeddedStore({ path: db });
    const shared = new SharedContext({ store, subjectId: "acme" });
    await shared.decide("session-a", "Retire legacy-billing: invoices move to the ledger", {
      kind: "architectural_decision",
      target: "legacy-billing",
    });
    await shared.close();
    const server = await startServer({ store, port: 0, ...options });
    running.push(server);
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    return { root, db, server, post };
  }

  it("answers Claude Code's recorded PreToolUse with the command hook's JSON, and an unchecked edit with an empty 200", async () => {
    const { root, db, post } = await served();
    const [, edit, sed, payEdit] = recorded("claude-code-2.1.197", root);
    const response = await post("/hooks/claude-code?subject=acme", edit);
    expect(response.status).toBe(200);
    const overHttp = await answer(response);
    expect(overHttp.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(overHttp.hookSpecificOutput.permissionDecisionReason).toContain(
      "src/legacy-billing/index.ts belongs to module legacy-billing",
    );
    const command = await runHookCli(
      ["hook", "pre-tool-use", "--root", root, "--db", db, "--subject", "acme"],
      {
        stdin: JSON.stringify(edit),
      },
    );
    expect(overHttp).toEqual(command.output);
    expect(
      (await answer(await post("/hooks/claude-code?subject=acme", sed))).hookSpecificOutput
        .permissionDecision,
    ).toBe("deny");
    const allowed = await post("/hooks/claude-code?subject=acme", payEdit);
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toBe("");
  });

  it("answers SessionStart with the decisions, and Gemini CLI's BeforeTool with a top-level deny", async () => {
    const { root, post } = await served();
    const [start] = recorded("claude-code-2.1.197", root);
    const started = await answer(await post("/hooks/claude-code?subject=acme", start));
    expect(started.hookSpecificOutput.additionalContext).toContain("Retire legacy-billing");
    const [, write] = recorded("gemini-cli-0.61.0", root);
    const refused = await answer(await post("/hooks/gemini-cli?subject=acme", write));
    expect(refused.decision).toBe("deny");
    expect(refused.reason).toContain("belongs to module legacy-billing");
  });

  it("maps a remote client's paths with the project it sends, and refuses a cwd it cannot see without one", async () => {
    const { post } = await served();
    const [, edit] = recorded("claude-code-2.1.197", "/home/bob/acme");
    const unknown = await post("/hooks/claude-code?subject=acme", edit);
    expect(unknown.status).toBe(422);
    expect((await answer(unknown)).error.code).toBe("project_unknown");
    const project = JSON.stringify({ modules: { "legacy-billing": ["src/legacy-billing/**"] } });
    const mapped = await post("/hooks/claude-code?subject=acme", edit, {
      "X-Shared-Ctx-Project": project,
      "X-Shared-Ctx-Root": "/home/bob/acme",
    });
    expect((await answer(mapped)).hookSpecificOutput.permissionDecision).toBe("deny");
    const bad = await post("/hooks/claude-code?subject=acme", edit, {
      "X-Shared-Ctx-Project": "{}",
    });
    expect(bad.status).toBe(422);
    expect((await answer(bad)).error.message).toContain("X-Shared-Ctx-Project header: modules");
  });

  it("keeps serve's protections: the API key, the Host check, 4xx envelopes for bad input", async () => {
    const { root, server, post } = await served({ apiKey: "s3cret" });
    const [, edit] = recorded("claude-code-2.1.197", root);
    expect((await post("/hooks/claude-code", edit)).status).toBe(401);
    expect((await post("/hooks/claude-code", edit, { "X-API-Key": "s3cret" })).status).toBe(200);
    // fetch cannot set Host: a raw request addressed to another name (DNS rebinding).
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const request = httpRequest(
        `${server.url}/hooks/claude-code`,
        {
          method: "POST",
          headers: {
            Host: "evil.example",
            "Content-Type": "application/json",
            "X-API-Key": "s3cret",
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode);
        },
      );
      request.on("error", reject);
      request.end(JSON.stringify(edit));
    });
    expect(status).toBe(403);
    const notJson = await post("/hooks/claude-code", "{nope", { "X-API-Key": "s3cret" });
    expect(notJson.status).toBe(422);
    expect((await answer(notJson)).error.code).toBe("validation_error");
    const wrongField = await post(
      "/hooks/claude-code",
      { ...edit, tool_input: [] },
      { "X-API-Key": "s3cret" },
    );
    expect(wrongField.status).toBe(422);
    expect(JSON.stringify(await answer(wrongField))).toContain("tool_input");
    const harness = await post("/hooks/cursor", edit, { "X-API-Key": "s3cret" });
    expect(harness.status).toBe(404);
    expect((await answer(harness)).error.message).toContain("/hooks/claude-code");
  });

  it("serves the MCP tools over streamable HTTP: a decision published there refuses the next edit", async () => {
    const { root, server, post } = await served();
    const client = new Client({ name: "test", version: "0.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp?subject=acme`), {
        requestInit: { headers: { "X-Shared-Ctx-Agent": "lead" } },
      }),
    );
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toContain("publish_decision");
      const published = await client.callTool({
        name: "publish_decision",
        arguments: { content: "Retire payments: pay through billing", target: "payments" },
      });
      expect(published.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const [, , , payEdit] = recorded("claude-code-2.1.197", root);
    const refused = await answer(await post("/hooks/claude-code?subject=acme", payEdit));
    expect(refused.hookSpecificOutput.permissionDecisionReason).toContain(
      'lead decided "Retire payments',
    );
    const stale = await fetch(`${server.url}/mcp?subject=acme`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "Mcp-Session-Id": "gone",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(stale.status).toBe(404);
  });
});
