import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { spawnTsChild, waitForExit } from "../support/run-child.js";

const forbidLangchain = fileURLToPath(new URL("./fixtures/forbid-langchain.mjs", import.meta.url));
const importEntry = fileURLToPath(new URL("./fixtures/import-entry.ts", import.meta.url));
const forbidImports = fileURLToPath(new URL("./fixtures/forbid-imports.mjs", import.meta.url));

/** What importing the stores and `SharedContext` must not load (issue 28). */
const heavy = [
  "/node_modules/ai/",
  "/node_modules/@ai-sdk/",
  "/node_modules/@modelcontextprotocol/",
  "/node_modules/hono/",
  "/node_modules/@hono/",
  "/src/llm/provider",
];

function importForbidding(entry: string, patterns: readonly string[]) {
  const child = spawnTsChild(importEntry, [entry], {
    NODE_OPTIONS: `--import ${forbidImports}`,
    SHARED_CTX_FORBID: patterns.join(","),
  });
  return waitForExit(child);
}

function importWithoutLangchain(entry: string) {
  const child = spawnTsChild(importEntry, [entry], { NODE_OPTIONS: `--import ${forbidLangchain}` });
  return waitForExit(child);
}

describe("the shared-ctx main entry", () => {
  it("loads without @langchain/* installed (LangGraph is an optional peer)", async () => {
    const { code, stdout, stderr } = await importWithoutLangchain("index.ts");

    expect(stderr).not.toContain("forbidden import");
    expect(code).toBe(0);
    const names: string[] = JSON.parse(stdout);
    expect(names).toEqual(
      expect.arrayContaining([
        "EmbeddedStore",
        "SharedContext",
        "SharedState",
        "StatewaveClient",
        "createContextStore",
        "sharedContextTools",
        "readLlmSettings",
        "startRun",
      ]),
    );
    expect(names).not.toContain("SyncedStore");
  });

  it("keeps LangGraph behind the shared-ctx/langgraph entry (which does need it)", async () => {
    const { code, stderr } = await importWithoutLangchain("langgraph.ts");

    expect(code).not.toBe(0);
    expect(stderr).toContain("forbidden import: @langchain/langgraph");
  });

  it("loads neither the AI SDK, the MCP SDK, hono nor the LLM provider", async () => {
    const { code, stdout, stderr } = await importForbidding("index.ts", heavy);
    expect(stderr).not.toContain("forbidden import");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(expect.arrayContaining(["SharedContext", "EmbeddedStore"]));
  });

  it.each([
    ["mcp.ts", "/node_modules/@modelcontextprotocol/", "createSharedContextMcpServer"],
    ["llm.ts", "/node_modules/@ai-sdk/", "createLlmProvider"],
    ["server.ts", "/node_modules/hono/", "startServer"],
  ])("keeps %s behind its own entry, which loads %s", async (entry, pattern, name) => {
    const { code, stderr } = await importForbidding(entry, [pattern]);
    expect(code).not.toBe(0);
    expect(stderr).toContain(`forbidden import`);
    const { stdout } = await waitForExit(spawnTsChild(importEntry, [entry]));
    expect(JSON.parse(stdout)).toContain(name);
  });
});
