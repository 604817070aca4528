import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { makeInitCommand } from "../../src/cli/commands/init.js";
import { useTempDir } from "../support/temp-dir.js";
import { runCommand } from "./cli-harness.js";

/**
 * The part of Claude Code's settings schema `init claude-code` writes, as documented in the hooks
 * reference (https://code.claude.com/docs/en/hooks, "Configuration" → "Structure"): `hooks` maps
 * an event name to matcher groups; a group has an optional `matcher` (a tool-name pattern, a
 * regular expression such as `Edit|Write`) and `hooks`, each `{ type: "command", command,
 * timeout? }` (timeout in seconds).
 */
const hookEvent = z.enum([
  "PreToolUse",
  "PostToolUse",
  "Notification",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "PreCompact",
  "SessionStart",
  "SessionEnd",
]);
const commandHook = z
  .object({
    type: z.literal("command"),
    command: z.string().min(1),
    timeout: z.number().positive().optional(),
  })
  .strict();
const matcherGroup = z
  .object({
    matcher: z
      .string()
      .refine((pattern) => {
        try {
          new RegExp(pattern);
          return true;
        } catch {
          return false;
        }
      }, "a matcher is a regular expression")
      .optional(),
    hooks: z.array(commandHook).min(1),
  })
  .strict();
const claudeSettings = z.looseObject({
  hooks: z.partialRecord(hookEvent, z.array(matcherGroup)).optional(),
});

/**
 * `.mcp.json` as the MCP docs describe a project-scoped stdio server
 * (https://code.claude.com/docs/en/mcp, "Project scope"): `mcpServers.<name>` with `command`,
 * `args` and optional `env`.
 */
const mcpConfig = z.object({
  mcpServers: z.record(
    z.string(),
    z
      .object({
        type: z.literal("stdio").optional(),
        command: z.string().min(1),
        args: z.array(z.string()).optional(),
        env: z.record(z.string(), z.string()).optional(),
      })
      .strict(),
  ),
});

/** This clone's bin: what `init` writes when it runs from a clone (as these tests do). */
const cloneBin = join(fileURLToPath(new URL("../..", import.meta.url)), "bin", "shared-ctx.js");

describe("shared-ctx init claude-code", () => {
  const tempDir = useTempDir("shared-ctx-init-");

  function repository(): string {
    const root = tempDir();
    mkdirSync(join(root, ".git"));
    return root;
  }

  /** `shared-ctx init claude-code` in `root`, with any further flags. */
  const initClaudeCode = (root: string, ...flags: string[]) =>
    runCommand(makeInitCommand, ["init", "claude-code", "--root", root, ...flags]);

  const read = (root: string) => ({
    settings: readFileSync(join(root, ".claude", "settings.json"), "utf8"),
    mcp: readFileSync(join(root, ".mcp.json"), "utf8"),
    gitignore: readFileSync(join(root, ".gitignore"), "utf8"),
  });

  it("writes the MCP server and the hooks into a fresh repository, valid against the documented schema", async () => {
    const root = repository();
    const run = await initClaudeCode(root, "--subject", "acme");
    expect(run.exitCode).toBe(0);
    // Run from this clone: the entries run this very bin, by its absolute path, never npx.
    expect(run.stdout).toContain(
      `.mcp.json:\n  mcpServers.shared-ctx: added ${cloneBin} mcp --subject acme`,
    );
    expect(run.stdout).toContain(
      `hooks.PreToolUse: added ${cloneBin} hook pre-tool-use --subject acme`,
    );
    const files = read(root);
    const settings = claudeSettings.parse(JSON.parse(files.settings));
    const pre = settings.hooks?.PreToolUse;
    expect(pre).toEqual([
      {
        matcher: "Edit|Write|MultiEdit|NotebookEdit|Bash",
        hooks: [{ type: "command", command: expect.any(String), timeout: 10 }],
      },
    ]);
    const command = pre?.[0]?.hooks[0]?.command ?? "";
    expect(command.startsWith("sh -c ")).toBe(true);
    expect(command.endsWith(` shared-ctx hook pre-tool-use --subject acme`)).toBe(true);
    expect(command).toContain(cloneBin);
    expect(command).not.toContain("npx");
    expect(settings.hooks?.PostToolUse?.[0]?.hooks[0]?.command).toMatch(
      / shared-ctx hook post-tool-use --subject acme$/,
    );
    expect(settings.hooks?.SessionStart?.[0]?.hooks[0]?.command).toMatch(
      / shared-ctx hook session-start --subject acme$/,
    );
    const mcp = mcpConfig.parse(JSON.parse(files.mcp));
    // No --agent: the server takes the session's name as the hooks do (SHARED_CTX_AGENT, else
    // the session id Claude Code gives both).
    expect(mcp.mcpServers["shared-ctx"]).toEqual({
      command: cloneBin,
      args: ["mcp", "--subject", "acme"],
    });
  });

  it("run twice gives the same files, and says nothing changed", async () => {
    const root = repository();
    await initClaudeCode(root);
    const first = read(root);
    const again = await initClaudeCode(root);
    expect(read(root)).toEqual(first);
    expect(again.stdout).toContain(
      ".mcp.json: unchanged\n.claude/settings.json: unchanged\n.gitignore: unchanged\n",
    );
  });

  it("keeps the settings and servers that are there, and updates its own entries in place", async () => {
    const root = repository();
    mkdirSync(join(root, ".claude"));
    const theirs = {
      permissions: { allow: ["Bash(npm test)"] },
      hooks: {
        PreToolUse: [
          {
            matcher: "Edit",
            hooks: [
              { type: "command", command: "prettier --check" },
              { type: "command", command: "npx shared-ctx hook pre-tool-use --subject old" },
            ],
          },
        ],
        Stop: [{ hooks: [{ type: "command", command: "say done" }] }],
      },
    };
    writeFileSync(join(root, ".claude", "settings.json"), JSON.stringify(theirs));
    writeFileSync(
      join(root, ".mcp.json"),
      JSON.stringify({ mcpServers: { github: { command: "gh-mcp" } } }),
    );
    const run = await initClaudeCode(root, "--subject", "new");
    expect(run.stdout).toContain("hooks.PreToolUse: updated");
    const settings = claudeSettings.parse(JSON.parse(read(root).settings));
    expect(settings.permissions).toEqual(theirs.permissions);
    expect(settings.hooks?.Stop).toEqual(theirs.hooks.Stop);
    expect(settings.hooks?.PreToolUse?.[0]).toEqual({
      matcher: "Edit",
      hooks: [{ type: "command", command: "prettier --check" }],
    });
    expect(settings.hooks?.PreToolUse?.[1]?.hooks[0]?.command).toMatch(
      / shared-ctx hook pre-tool-use --subject new$/,
    );
    expect(settings.hooks?.PreToolUse).toHaveLength(2);
    const mcp = mcpConfig.parse(JSON.parse(read(root).mcp));
    expect(Object.keys(mcp.mcpServers)).toEqual(["github", "shared-ctx"]);
  });

  it("writes the same hooks into each --subfolder, and refuses one outside the repository", async () => {
    const root = repository();
    mkdirSync(join(root, "packages", "web"), { recursive: true });
    const run = await initClaudeCode(root, "--subfolder", join(root, "packages", "web"));
    expect(run.stdout).toContain(
      "packages/web/.claude/settings.json:\n  hooks.SessionStart: added",
    );
    expect(readFileSync(join(root, "packages", "web", ".claude", "settings.json"), "utf8")).toBe(
      read(root).settings,
    );
    const outside = await initClaudeCode(root, "--subfolder", tempDir());
    expect(outside.exitCode).toBe(2);
    expect(outside.stderr).toContain("--subfolder");
  });

  it("--dry-run prints the changes and writes nothing", async () => {
    const root = repository();
    const run = await initClaudeCode(root, "--dry-run");
    expect(run.stdout).toContain(".claude/settings.json: (dry run, not written)");
    expect(run.stdout).toContain(
      ".gitignore: (dry run, not written)\n  added .shared-ctx/ (the embedded store",
    );
    expect(existsSync(join(root, ".claude", "settings.json"))).toBe(false);
    expect(existsSync(join(root, ".mcp.json"))).toBe(false);
    expect(existsSync(join(root, ".gitignore"))).toBe(false);
  });

  describe(".gitignore", () => {
    it("a fresh repository gets one that ignores the store's folder, once however often it runs", async () => {
      const root = repository();
      const first = await initClaudeCode(root);
      expect(first.stdout).toContain(".gitignore:\n  added .shared-ctx/");
      await initClaudeCode(root);
      expect(read(root).gitignore).toBe(".shared-ctx/\n");
    });

    it("keeps what is there, adding the line after a last line without a newline", async () => {
      const root = repository();
      writeFileSync(join(root, ".gitignore"), "node_modules/\ndist");
      await initClaudeCode(root);
      expect(read(root).gitignore).toBe("node_modules/\ndist\n.shared-ctx/\n");
    });

    it.each([".shared-ctx", "/.shared-ctx/", ".shared-ctx/*", "  .shared-ctx/  "])(
      "leaves a file that already ignores it (%j) untouched",
      async (line) => {
        const root = repository();
        writeFileSync(join(root, ".gitignore"), `dist/\n${line}\n`);
        const run = await initClaudeCode(root);
        expect(run.stdout).toContain(".gitignore: unchanged");
        expect(read(root).gitignore).toBe(`dist/\n${line}\n`);
      },
    );

    it("does not take a similar name for it", async () => {
      const root = repository();
      writeFileSync(join(root, ".gitignore"), ".shared-ctx-old/\n# .shared-ctx/\n");
      await initClaudeCode(root);
      expect(read(root).gitignore).toBe(".shared-ctx-old/\n# .shared-ctx/\n.shared-ctx/\n");
    });
  });

  it("refuses a settings file that is not JSON, naming it", async () => {
    const root = repository();
    mkdirSync(join(root, ".claude"));
    writeFileSync(join(root, ".claude", "settings.json"), "{ hooks: ");
    const run = await initClaudeCode(root);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`${join(root, ".claude", "settings.json")} is not valid JSON`);
  });
});
