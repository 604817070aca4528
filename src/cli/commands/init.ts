import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { UsageError } from "../fatal-error.js";
import { type HookCommandOptions, resolveHookProject } from "../hook-runtime.js";
import { makeInitGeminiCliCommand } from "./init-gemini-cli.js";

interface InitClaudeCodeOptions extends Omit<HookCommandOptions, "agent"> {
  dryRun?: boolean;
  command?: string;
  /** `--server URL`: HTTP hooks and MCP to `shared-ctx serve` there (init-claude-code-server.ts). */
  server?: string;
}

/**
 * `shared-ctx init claude-code [--dry-run]`: writes the MCP server entry (`.mcp.json`) and the
 * edit hooks (`.claude/settings.json`) into the repository, merged into what is there, adds the
 * embedded store's folder to `.gitignore`, and prints what it changed. Idempotent: a second run changes nothing.
 */
export function makeInitCommand(deps: CliDeps): Command {
  const init = new Command("init").description("set a coding harness up to use the shared context");
  init.addCommand(
    new Command("claude-code")
      .description(
        "write the shared-ctx MCP server into .mcp.json and its edit hooks into .claude/settings.json",
      )
      .option("--dry-run", "print what would change and write nothing")
      .option(
        "--subject <id>",
        "the shared subject written into the commands (default: the configuration's, else none: each command then uses the project folder's name)",
      )
      .option(
        "--root <dir>",
        "the repository root (default: the nearest folder with shared-ctx.config.json or .git)",
      )
      .option(
        "--db <path>",
        "embedded store file the commands use (default: <root>/.shared-ctx/store.db)",
      )
      .option("--url <url>", "a Statewave server the commands use, instead of the embedded store")
      .option(
        "--command <cmd>",
        "how the hooks start shared-ctx (default: the project's node_modules/.bin/shared-ctx, else `shared-ctx` on PATH)",
      )
      .option(
        "--server <url>",
        "check edits through shared-ctx serve at this URL: Claude Code's HTTP hooks and HTTP MCP entry, no process per edit (a SessionStart hook starts a loopback server when it is down)",
      )
      .action((options: InitClaudeCodeOptions) => initClaudeCode(options, deps)),
  );
  init.addCommand(makeInitGeminiCliCommand(deps));
  return init;
}

/** A JSON settings file's contents, undefined when it is missing or empty. @throws UsageError when it is not JSON */
export function readJson(path: string): unknown {
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, "utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${path} is not valid JSON (${(error as Error).message}); fix it, then run again`,
      {
        cause: error,
      },
    );
  }
}

async function initClaudeCode(options: InitClaudeCodeOptions, deps: CliDeps): Promise<void> {
  if (options.server !== undefined) {
    const { initClaudeCodeServer } = await import("./init-claude-code-server.js");
    return initClaudeCodeServer({ ...options, server: options.server }, deps);
  }
  const { mergeClaudeSettings, mergeGitignore, mergeMcpConfig } = await import(
    "../../hooks/claude-code-settings.js"
  );
  const { root, project } = resolveHookProject(options, deps);
  const subject = options.subject ?? project.subject;
  const flags = [
    ...(subject !== undefined ? ["--subject", subject] : []),
    ...(options.db !== undefined ? ["--db", options.db] : []),
    ...(options.url !== undefined ? ["--store", "statewave", "--url", options.url] : []),
  ];
  const localBin = existsSync(join(root, "node_modules", ".bin", "shared-ctx"));
  const bin =
    options.command ??
    (localBin ? '"$CLAUDE_PROJECT_DIR"/node_modules/.bin/shared-ctx' : "shared-ctx");
  const setup = {
    bin,
    mcpCommand: mcpCommandOf(options.command),
    flags,
  };
  const settingsPath = join(root, ".claude", "settings.json");
  const mcpPath = join(root, ".mcp.json");
  const settings = mergeClaudeSettings(readJson(settingsPath), setup);
  const mcp = mergeMcpConfig(readJson(mcpPath), setup);
  const gitignorePath = join(root, ".gitignore");
  const gitignore = mergeGitignore(
    existsSync(gitignorePath) ? readFileSync(gitignorePath, "utf8") : undefined,
  );
  const lines: string[] = [];
  for (const [path, changes, contents] of [
    [mcpPath, mcp.changes, `${JSON.stringify(mcp.config, null, 2)}\n`],
    [settingsPath, settings.changes, `${JSON.stringify(settings.settings, null, 2)}\n`],
    [gitignorePath, gitignore.changes, gitignore.text],
  ] as const) {
    const name = relative(root, path);
    if (changes.length === 0) {
      lines.push(`${name}: unchanged`);
      continue;
    }
    lines.push(
      `${name}:${options.dryRun ? " (dry run, not written)" : ""}`,
      ...changes.map((change) => `  ${change}`),
    );
    if (!options.dryRun) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, contents);
    }
  }
  if (!localBin && options.command === undefined) {
    lines.push(
      "note: shared-ctx is not in this project's node_modules; the hooks run `shared-ctx` from PATH (npm install -D shared-ctx, then run this again, to pin it)",
    );
  }
  deps.stdout.write(`${lines.join("\n")}\n`);
}

/** How `.mcp.json` starts the server: `--command`'s words (no shell there), else npx. */
function mcpCommandOf(command: string | undefined): { command: string; args: string[] } {
  const words =
    command
      ?.replace(/"\$CLAUDE_PROJECT_DIR"\/?/g, "")
      .split(/\s+/)
      .filter(Boolean) ?? [];
  const [first, ...rest] = words;
  return first === undefined
    ? { command: "npx", args: ["shared-ctx"] }
    : { command: first, args: rest };
}
