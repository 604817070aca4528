import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { waitForExit } from "../support/run-child.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/**
 * README's and docs/'s TypeScript and JavaScript blocks, run as a new user would: each ```ts/```js
 * block is written to a file of its own, its `shared-ctx` imports pointed at the sources (what the
 * package's entries are built from), and run with tsx in a fresh folder, with no model and no
 * server configured. A block that cannot run alone has `<!-- docs-test: skip (why) -->` (in
 * README, `<!-- readme-test: skip (why) -->`) on the line above its fence. Two blocks stop, as
 * they say they will, where a fresh machine lacks something: the AI SDK one at its own "set
 * LLM_MODEL" check, the semantic-search one at the missing `@langchain/openai`.
 */
const entries: Record<string, string> = {
  "shared-ctx": "src/index.ts",
  "shared-ctx/langgraph": "src/langgraph.ts",
  "shared-ctx/llm": "src/llm.ts",
  "shared-ctx/mcp": "src/mcp.ts",
  "shared-ctx/server": "src/server.ts",
};

/** One code block: where it is, its language, its text, and why it is skipped (if it is). */
interface CodeBlock {
  readonly file: string;
  readonly line: number;
  readonly language: "ts" | "js";
  readonly source: string;
  readonly skip?: string;
}

const fence = /^```(ts|typescript|js|javascript)\s*$/;
const skipMarker = /<!-- (?:docs|readme)-test: skip \((.+)\) -->/;

function codeBlocks(file: string): CodeBlock[] {
  const lines = readFileSync(join(repoRoot, file), "utf8").split("\n");
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const opening = fence.exec(lines[index] ?? "");
    if (!opening) continue;
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length && lines[index]?.trim() !== "```"; index += 1) {
      body.push(lines[index] ?? "");
    }
    const marker = skipMarker.exec(lines[start - 1] ?? "");
    blocks.push({
      file,
      line: start + 1,
      language: opening[1]?.startsWith("t") ? "ts" : "js",
      source: body.join("\n"),
      ...(marker ? { skip: marker[1] } : {}),
    });
  }
  return blocks;
}

const documents = [
  "README.md",
  ...readdirSync(join(repoRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];
const blocks = documents.flatMap(codeBlocks);

describe("README's and docs/'s code blocks run as written", () => {
  // Inside the repository, so the snippets resolve its node_modules as a user's project would its own.
  const folder = mkdtempSync(join(repoRoot, ".docs-snippets-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("has blocks to run, and every skipped one says why", () => {
    expect(blocks.filter((block) => block.skip === undefined).length).toBeGreaterThanOrEqual(10);
    for (const block of blocks)
      if (block.skip !== undefined) expect(block.skip.trim()).not.toBe("");
  });

  it.each(
    blocks
      .filter((block) => block.skip === undefined)
      .map((block) => [`${block.file}:${block.line}`, block] as const),
  )(
    "runs the block at %s",
    async (where, block) => {
      const cwd = join(folder, where.replaceAll(/[/:.]/g, "-"));
      mkdirSync(cwd);
      const source = block.source.replace(
        /from "(shared-ctx(?:\/[a-z]+)?)"/g,
        (whole, name: string) => {
          const entry = entries[name];
          return entry ? `from ${JSON.stringify(join(repoRoot, entry))}` : whole;
        },
      );
      const file = join(cwd, block.language === "ts" ? "snippet.mts" : "snippet.mjs");
      writeFileSync(file, source);
      // No model and no server configured, as on a fresh machine; the block's files land in its folder.
      const {
        LLM_MODEL: _model,
        STATEWAVE_URL: _statewave,
        SHARED_CTX_DATABASE_URL: _database,
        ...environment
      } = process.env;
      const child = spawn(process.execPath, ["--import", "tsx", file], {
        cwd,
        env: environment,
        stdio: ["ignore", "pipe", "pipe"],
      });
      // A block that never ends (an open handle it forgot to close) fails here, not at the test's timeout.
      const timer = setTimeout(() => child.kill("SIGKILL"), 50_000);
      const result = await waitForExit(child).finally(() => clearTimeout(timer));
      if (block.source.includes("@langchain/openai")) {
        expect(result.stderr).toContain("@langchain/openai");
        return;
      }
      if (block.source.includes("readLlmSettings(process.env)")) {
        expect(result.stderr).toContain("set LLM_MODEL");
        return;
      }
      expect(result.stderr, where).toBe("");
      expect(result.signal, `${where} did not exit by itself`).toBeNull();
      expect(result.code, where).toBe(0);
    },
    60_000,
  );
});
