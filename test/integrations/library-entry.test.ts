import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { spawnTsChild, waitForExit } from "../support/run-child.js";

const forbidLangchain = fileURLToPath(new URL("./fixtures/forbid-langchain.mjs", import.meta.url));
const importEntry = fileURLToPath(new URL("./fixtures/import-entry.ts", import.meta.url));

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
        "createSharedContextMcpServer",
      ]),
    );
    expect(names).not.toContain("SyncedStore");
  });

  it("keeps LangGraph behind the shared-ctx/langgraph entry (which does need it)", async () => {
    const { code, stderr } = await importWithoutLangchain("langgraph.ts");

    expect(code).not.toBe(0);
    expect(stderr).toContain("forbidden import: @langchain/langgraph");
  });
});
