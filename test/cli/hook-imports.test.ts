import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reachablePackages, repoRoot } from "../support/import-graph.js";

/**
 * The hook runs on every edit: what it loads is its latency. Packages the hook path must never
 * reach, even through an `await import()` it makes: the UI, the AI SDK, the MCP SDK.
 */
const forbidden = [
  "ink",
  "react",
  "ai",
  "@ai-sdk/openai",
  "@modelcontextprotocol/sdk",
  "zod",
  "hono",
];

/**
 * The one deferred load the hook path may make of a heavy module: the shared state (Loro), and
 * only when two sessions' edits collide (`raiseModuleEscalation`).
 */
const collisionOnly = new Set(["src/crdt/shared-state.ts"]);

describe("the hook path (`shared-ctx hook …`, `check`) loads no UI, AI SDK or MCP SDK", () => {
  describe.each(["src/cli/commands/hook.ts", "src/cli/commands/check.ts"])("%s", (entry) => {
    const packages = reachablePackages(join(repoRoot, entry), {
      deferred: true,
      skip: collisionOnly,
    });

    it("reaches the store's driver (it reads the store)", () => {
      expect(packages.has("better-sqlite3")).toBe(true);
    });

    it.each(forbidden)("never reaches %s", (name) => {
      // The chain names the module that pulls it in.
      expect(packages.get(name)).toBeUndefined();
    });
  });
});

describe("the hook's fast path (src/cli/hook-main.ts, what bin/ runs for `hook …`/`check …`)", () => {
  const packages = reachablePackages(join(repoRoot, "src/cli/hook-main.ts"), {
    deferred: true,
    skip: collisionOnly,
  });

  it("reaches the store's driver", () => {
    expect(packages.has("better-sqlite3")).toBe(true);
  });

  // Building commander's command table is the cost the fast path exists to skip.
  it.each([...forbidden, "commander"])("never reaches %s", (name) => {
    expect(packages.get(name)).toBeUndefined();
  });
});
