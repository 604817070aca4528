import { readFileSync } from "node:fs";
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

describe("start-up: what `shared-ctx mcp` loads before it answers `initialize`", () => {
  // The modules serveMcp imports before the transport listens (listenEarly in commands/mcp.ts).
  const early = [
    join("src", "integrations", "early-initialize-transport.ts"),
    join("src", "integrations", "mcp-server-info.ts"),
  ];
  const mcpCommand = readFileSync(join(repoRoot, "src", "cli", "commands", "mcp.ts"), "utf8");

  it.each(early)("commands/mcp.ts answers initialize through %s", (file) => {
    const specifier = `../../${file.slice("src/".length).replace(/\.ts$/, ".js")}`;
    expect(mcpCommand).toContain(`import("${specifier}")`);
  });

  it.each(early)(
    "%s loads only the MCP SDK: no store, Loro, zod schemas or server of its own",
    (file) => {
      const packages = reachablePackages(join(repoRoot, file), { deferred: true });
      expect([...packages.keys()].filter((name) => name !== "@modelcontextprotocol/sdk")).toEqual(
        [],
      );
    },
  );
});
