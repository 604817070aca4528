import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { waitForExit } from "../support/run-child.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/**
 * docs/integrations.md's code, run as a new user would: every ```ts block that is a whole program
 * (it starts with its imports) is written to a file, its `shared-ctx` imports pointed at the
 * sources (what the package's entries are built from), and run in a fresh folder with no model
 * configured. A block that needs what a fresh machine lacks says so: the AI SDK one stops at its
 * own "set LLM_MODEL" check, the semantic-search one needs `@langchain/openai`, not installed here.
 */
const entries: Record<string, string> = {
  "shared-ctx": "src/index.ts",
  "shared-ctx/langgraph": "src/langgraph.ts",
  "shared-ctx/llm": "src/llm.ts",
  "shared-ctx/mcp": "src/mcp.ts",
  "shared-ctx/server": "src/server.ts",
};

function programs(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
  return blocks.filter((block) => block.startsWith("import "));
}

describe("docs/integrations.md's code blocks", () => {
  // Inside the repository, so the snippets resolve its node_modules as a user's project would its own.
  const folder = mkdtempSync(join(repoRoot, ".docs-snippets-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const blocks = programs(readFileSync(join(repoRoot, "docs", "integrations.md"), "utf8"));

  it("has whole programs to run", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
  });

  it.each(blocks.map((block, position) => [position, block] as const))(
    "runs block %i as written",
    async (position, block) => {
      const cwd = join(folder, `block-${position}`);
      mkdirSync(cwd);
      const source = block.replace(/from "(shared-ctx(?:\/[a-z]+)?)"/g, (whole, name: string) => {
        const entry = entries[name];
        return entry ? `from ${JSON.stringify(join(repoRoot, entry))}` : whole;
      });
      const file = join(cwd, "snippet.mts");
      writeFileSync(file, source);
      // No model configured, as on a fresh machine; the snippet's files (graph.db) land in its folder.
      const { LLM_MODEL: _model, ...environment } = process.env;
      const child = spawn(process.execPath, ["--import", "tsx", file], {
        cwd,
        env: environment,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const result = await waitForExit(child);
      if (block.includes("@langchain/openai")) {
        expect(result.stderr).toContain("@langchain/openai");
        return;
      }
      if (block.includes("readLlmSettings(process.env)")) {
        expect(result.stderr).toContain("set LLM_MODEL");
        return;
      }
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
    },
    60_000,
  );
});
