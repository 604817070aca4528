import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reachablePackages, repoRoot } from "../support/import-graph.js";

/** Packages that cost start-up time: only an action handler may load them (`await import`). */
const heavyPackages = [
  "ai",
  "@ai-sdk/openai",
  "@modelcontextprotocol/sdk",
  "hono",
  "@hono/node-server",
  "loro-crdt",
  "better-sqlite3",
  "pg",
  "yaml",
  "zod",
  "ink",
  "react",
  "dotenv",
  "string-width",
  "autocannon",
];

describe("start-up: what `shared-ctx` loads before a command's action runs", () => {
  const packages = reachablePackages(join(repoRoot, "src", "cli", "main.ts"), {
    deferred: false,
  });

  it("loads commander", () => {
    expect(packages.has("commander")).toBe(true);
  });

  it.each(heavyPackages)("does not load %s at module top level", (name) => {
    // The chain says which module to fix: move its import into the action handler.
    expect(packages.get(name)).toBeUndefined();
  });
});
