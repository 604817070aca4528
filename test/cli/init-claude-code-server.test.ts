import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { makeInitCommand } from "../../src/cli/commands/init.js";
import { useTempDir } from "../support/temp-dir.js";
import { runCommand } from "./cli-harness.js";

/** This clone's bin: what init writes when it is run from here (never npx). */
const cloneBin = join(fileURLToPath(new URL("../..", import.meta.url)), "bin", "shared-ctx.js");

/**
 * Claude Code's hook entries as its hooks reference documents them: a command hook
 * `{ type: "command", command, timeout? }` or an HTTP hook `{ type: "http", url, headers?,
 * allowedEnvVars?, timeout? }` (timeout in seconds; header values fill `$VAR` only for the
 * variables `allowedEnvVars` lists).
 */
const hook = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("command"),
      command: z.string().min(1),
      timeout: z.number().positive().optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal("http"),
      url: z.string().url(),
      headers: z.record(z.string(), z.string()).optional(),
      allowedEnvVars: z.array(z.string()).optional(),
      timeout: z.number().positive().optional(),
    })
    .strict(),
]);
const settings = z.looseObject({
  hooks: z.record(
    z.string(),
    z.array(z.object({ matcher: z.string().optional(), hooks: z.array(hook) }).strict()),
  ),
});
/** `.mcp.json`'s HTTP server: `{ type: "http", url, headers? }` (https://code.claude.com/docs/en/mcp). */
const mcp = z.object({
  mcpServers: z.record(
    z.string(),
    z
      .object({
        type: z.literal("http"),
        url: z.string().url(),
        headers: z.record(z.string(), z.string()).optional(),
      })
      .strict(),
  ),
});

describe("shared-ctx init claude-code --server URL", () => {
  const tempDir = useTempDir("shared-ctx-init-server-");
  const repository = () => {
    const root = join(tempDir(), "acme");
    mkdirSync(join(root, ".git"), { recursive: true });
    mkdirSync(join(root, "src", "billing"), { recursive: true });
    return root;
  };
  const init = (root: string, ...flags: string[]) =>
    runCommand(makeInitCommand, ["init", "claude-code", "--root", root, ...flags]);
  const read = (root: string) => ({
    settings: settings.parse(
      JSON.parse(readFileSync(join(root, ".claude", "settings.json"), "utf8")),
    ),
    mcp: mcp.parse(JSON.parse(readFileSync(join(root, ".mcp.json"), "utf8"))),
  });

  it("writes HTTP edit hooks with the key through allowedEnvVars, a SessionStart that keeps the server up, and the HTTP MCP entry", async () => {
    const root = repository();
    const run = await init(root, "--server", "http://127.0.0.1:8100/");
    expect(run.exitCode).toBe(0);
    const { settings: written, mcp: servers } = read(root);
    expect(written.hooks.PreToolUse).toEqual([
      {
        matcher: "Edit|Write|MultiEdit|NotebookEdit|Bash",
        hooks: [
          {
            type: "http",
            url: "http://127.0.0.1:8100/hooks/claude-code?subject=acme",
            headers: {
              "X-API-Key": "$SHARED_CTX_API_KEY",
              "X-Shared-Ctx-Agent": "$SHARED_CTX_AGENT",
            },
            allowedEnvVars: ["SHARED_CTX_API_KEY", "SHARED_CTX_AGENT"],
            timeout: 10,
          },
        ],
      },
    ]);
    expect(written.hooks.SessionStart?.[0]?.hooks[0]).toEqual({
      type: "command",
      command: `${cloneBin} hook session-start --server http://127.0.0.1:8100 --subject acme`,
      timeout: 10,
    });
    expect(servers.mcpServers["shared-ctx"]).toEqual({
      type: "http",
      url: "http://127.0.0.1:8100/mcp?subject=acme",
      headers: {
        "X-API-Key": `$${"{"}SHARED_CTX_API_KEY:-}`,
        "X-Shared-Ctx-Agent": `$${"{"}SHARED_CTX_AGENT:-claude}`,
      },
    });
    expect(run.stdout).toContain("starts `shared-ctx serve` on http://127.0.0.1:8100");
    expect(run.stdout).toContain("non-blocking error and the edit goes through UNCHECKED");
  });

  it("replaces the command hooks of a plain init (and back), and a second run changes nothing", async () => {
    const root = repository();
    await init(root);
    await init(root, "--server", "http://127.0.0.1:8100");
    const once = read(root);
    expect(once.settings.hooks.PreToolUse).toHaveLength(1);
    expect(once.settings.hooks.PreToolUse?.[0]?.hooks[0]?.type).toBe("http");
    const again = await init(root, "--server", "http://127.0.0.1:8100");
    expect(again.stdout).toContain(".claude/settings.json: unchanged");
    expect(read(root)).toEqual(once);
  });

  it("sends the module map with every call to a server on another machine", async () => {
    const root = repository();
    const run = await init(root, "--server", "https://ctx.team.example");
    const header = read(root).settings.hooks.PreToolUse?.[0]?.hooks[0];
    expect(
      header?.type === "http" &&
        JSON.parse(header.headers?.["X-Shared-Ctx-Project"] ?? "{}").modules,
    ).toEqual({
      billing: ["src/billing/**"],
    });
    expect(run.stdout).toContain("another machine's server");
  });

  it("names --server when it is not a URL", async () => {
    const run = await init(repository(), "--server", "localhost:8100x");
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("--server localhost:8100x");
  });
});
