import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { makeInitCommand } from "../../src/cli/commands/init.js";
import { geminiLaunch } from "../../src/cli/commands/init-gemini-cli.js";
import { useTempDir } from "../support/temp-dir.js";
import { runCommand } from "./cli-harness.js";

/**
 * The part of Gemini CLI 0.61.0's settings.json `init gemini-cli` writes, as the CLI reads it
 * (../shared/fixtures/gemini-cli-0.61.0/README.md): `hooks.<Event>` = matcher groups of
 * `{ type: "command", command, name, timeout }` with the timeout in milliseconds, and
 * `mcpServers.<name>` = `{ command, args }` or `{ httpUrl, headers }`.
 */
const commandHook = z
  .object({
    type: z.literal("command"),
    command: z.string().min(1),
    name: z.string().min(1),
    // Milliseconds: anything below a second would time out a Node hook (and let the write happen).
    timeout: z.number().int().min(1000),
  })
  .strict();
const group = z
  .object({ matcher: z.string().optional(), hooks: z.array(commandHook).min(1) })
  .strict();
const geminiSettings = z.looseObject({
  hooks: z.partialRecord(
    z.enum(["SessionStart", "BeforeTool", "AfterTool", "SessionEnd"]),
    z.array(group),
  ),
  mcpServers: z.record(
    z.string(),
    z.union([
      z.object({ command: z.string(), args: z.array(z.string()) }).strict(),
      z
        .object({ httpUrl: z.string().url(), headers: z.record(z.string(), z.string()).optional() })
        .strict(),
    ]),
  ),
});

/** This clone's bin: what init writes when it is run from here (never npx). */
const cloneBin = join(fileURLToPath(new URL("../..", import.meta.url)), "bin", "shared-ctx.js");

describe("shared-ctx init gemini-cli", () => {
  const tempDir = useTempDir("shared-ctx-init-gemini-");
  const repository = () => {
    const root = tempDir();
    mkdirSync(join(root, ".git"));
    return root;
  };
  const init = (root: string, ...flags: string[]) =>
    runCommand(makeInitCommand, ["init", "gemini-cli", "--root", root, ...flags]);
  const settingsOf = (root: string) =>
    geminiSettings.parse(JSON.parse(readFileSync(join(root, ".gemini", "settings.json"), "utf8")));

  it("writes the hooks (timeout in ms, anchored tool matcher) and the MCP server into .gemini/settings.json", async () => {
    const root = repository();
    const run = await init(root, "--subject", "acme");
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(
      `hooks.BeforeTool: added ${cloneBin} hook pre-tool-use --harness gemini-cli --subject acme`,
    );
    const settings = settingsOf(root);
    const before = settings.hooks.BeforeTool?.[0];
    expect(before?.hooks[0]).toEqual({
      type: "command",
      command: `${cloneBin} hook pre-tool-use --harness gemini-cli --subject acme`,
      name: "shared-ctx pre-tool-use",
      timeout: 10_000,
    });
    const matcher = new RegExp(before?.matcher ?? "");
    for (const tool of ["write_file", "replace", "run_shell_command"])
      expect(matcher.test(tool)).toBe(true);
    for (const tool of ["read_file", "mcp_shared-ctx_replace_x"])
      expect(matcher.test(tool)).toBe(false);
    expect(settings.hooks.AfterTool?.[0]?.hooks[0]?.command).toContain(
      "hook post-tool-use --harness gemini-cli",
    );
    expect(settings.hooks.SessionStart?.[0]?.matcher).toBeUndefined();
    expect(settings.mcpServers["shared-ctx"]).toEqual({
      command: cloneBin,
      args: ["mcp", "--subject", "acme", "--agent", `$${"{"}SHARED_CTX_AGENT:-gemini}`],
    });
    // Said where the user reads it: the CLI reads settings only where it starts.
    expect(run.stdout).toContain(
      "reads project settings only from .gemini/settings.json in the folder it starts in",
    );
    expect(run.stdout).toContain("a missing binary blocks every matched edit");
  });

  it("runs the project's own install through $GEMINI_PROJECT_DIR, unquoted (the CLI quotes it)", () => {
    expect(geminiLaunch({ kind: "project" })).toEqual({
      bin: "$GEMINI_PROJECT_DIR/node_modules/.bin/shared-ctx",
      mcp: { command: "node_modules/.bin/shared-ctx", args: [] },
    });
    expect(geminiLaunch({ kind: "path", path: "/opt/my tools/shared-ctx.js" }).bin).toBe(
      "'/opt/my tools/shared-ctx.js'",
    );
  });

  it("names --command when it is a command line, not the executable, and writes nothing", async () => {
    const root = repository();
    const run = await init(root, "--command", "node /nowhere/shared-ctx.js");
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("--command node /nowhere/shared-ctx.js: no such file");
    expect(existsSync(join(root, ".gemini"))).toBe(false);
  });

  it("keeps the user's settings and hooks, and a second run changes nothing", async () => {
    const root = repository();
    mkdirSync(join(root, ".gemini"));
    const mine = {
      matcher: "write_file",
      hooks: [{ type: "command", command: "./lint.sh", name: "lint", timeout: 5000 }],
    };
    writeFileSync(
      join(root, ".gemini", "settings.json"),
      JSON.stringify({ model: { name: "gemini-2.5-pro" }, hooks: { BeforeTool: [mine] } }),
    );
    await init(root);
    const first = readFileSync(join(root, ".gemini", "settings.json"), "utf8");
    const settings = settingsOf(root);
    expect(settings.model).toEqual({ name: "gemini-2.5-pro" });
    expect(settings.hooks.BeforeTool?.[0]).toEqual(mine);
    expect(settings.hooks.BeforeTool).toHaveLength(2);
    const again = await init(root);
    expect(readFileSync(join(root, ".gemini", "settings.json"), "utf8")).toBe(first);
    expect(again.stdout).toContain(".gemini/settings.json: unchanged");
  });

  it("names the file when .gemini/settings.json is not JSON, and writes nothing", async () => {
    const root = repository();
    mkdirSync(join(root, ".gemini"));
    writeFileSync(join(root, ".gemini", "settings.json"), "{ nope");
    const run = await init(root);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(join(root, ".gemini", "settings.json"));
    expect(readFileSync(join(root, ".gemini", "settings.json"), "utf8")).toBe("{ nope");
  });
});
