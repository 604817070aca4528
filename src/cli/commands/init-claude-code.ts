import { isAbsolute, join, relative, resolve } from "node:path";
import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { UsageError } from "../fatal-error.js";
import { type HookCommandOptions, resolveHookProject } from "../hook-runtime.js";
import { packageRoot } from "../version.js";
import {
  jsonText,
  launcherOf,
  type PlannedFile,
  readJsonFile,
  readTextFile,
  writePlannedFiles,
} from "./init-files.js";

interface InitClaudeCodeOptions extends Omit<HookCommandOptions, "agent"> {
  dryRun?: boolean;
  command?: string;
  subfolder?: string[];
  /** `--server URL`: HTTP hooks and MCP to `shared-ctx serve` there (init-claude-code-server.ts). */
  server?: string;
}

/**
 * `shared-ctx init claude-code [--dry-run]`: writes the MCP server entry (`.mcp.json`) and the
 * edit hooks (`.claude/settings.json`, and the same in each `--subfolder`) into the repository,
 * merged into what is there, adds the embedded store's folder to `.gitignore`, and prints what it
 * changed. Idempotent: a second run changes nothing.
 */
export function makeInitClaudeCodeCommand(deps: CliDeps): Command {
  return new Command("claude-code")
    .description(
      "write the shared-ctx MCP server into .mcp.json and its edit hooks into .claude/settings.json",
    )
    .option("--dry-run", "print what would change and write nothing")
    .option(
      "--subject <id>",
      "the shared subject written into the commands (default: none, so each command uses the configuration's, else the repository folder's name)",
    )
    .option(
      "--root <dir>",
      "the repository root (default: the nearest folder with shared-ctx.config.json, else the git checkout)",
    )
    .option(
      "--db <path>",
      "embedded store file the commands use, relative to the repository (default: <repository>/.shared-ctx/store.db, shared by every worktree)",
    )
    .option("--url <url>", "a Statewave server the commands use, instead of the embedded store")
    .option(
      "--subfolder <dir...>",
      "also hook sessions started in these folders (Claude Code reads only the starting folder's .claude/settings.json)",
    )
    .option(
      "--command <path>",
      "the shared-ctx executable the hooks and the MCP server run (default: the one running now: the project's node_modules/.bin/shared-ctx when installed there, else this bin's absolute path)",
    )
    .option(
      "--server <url>",
      "check edits through shared-ctx serve at this URL: Claude Code's HTTP hooks and HTTP MCP entry, no process per edit (a SessionStart hook starts a loopback server when it is down)",
    )
    .addHelpText(
      "after",
      [
        "",
        "A hook whose executable is missing says so to the model and to you, then allows or refuses",
        "the call as hooks.whenStoreDown says (run init again after changing it).",
        "",
        "Examples:",
        "  $ ~/src/shared-ctx/bin/shared-ctx.js init claude-code        (from a clone)",
        "  $ npx shared-ctx init claude-code --subfolder packages/web    (installed in the project)",
      ].join("\n"),
    )
    .action((options: InitClaudeCodeOptions) => initClaudeCode(options, deps));
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
  const setup = {
    launcher: launcherOf(root, packageRoot(), options.command),
    flags: [
      ...(subject !== undefined ? ["--subject", subject] : []),
      ...(options.db !== undefined ? ["--db", options.db] : []),
      ...(options.url !== undefined ? ["--store", "statewave", "--url", options.url] : []),
    ],
    whenMissing: project.hooks.whenStoreDown,
  };
  const settingsFolders = [
    "",
    ...(options.subfolder ?? []).map((dir) => subfolderOf(root, dir, deps)),
  ];
  const files: PlannedFile[] = [];
  const mcpPath = join(root, ".mcp.json");
  const mcp = mergeMcpConfig(readJsonFile(mcpPath), setup);
  files.push({ path: mcpPath, changes: mcp.changes, contents: jsonText(mcp.config) });
  for (const folder of [...new Set(settingsFolders)]) {
    const path = join(root, folder, ".claude", "settings.json");
    const merged = mergeClaudeSettings(readJsonFile(path), setup);
    files.push({ path, changes: merged.changes, contents: jsonText(merged.settings) });
  }
  const gitignorePath = join(root, ".gitignore");
  const gitignore = mergeGitignore(readTextFile(gitignorePath));
  files.push({ path: gitignorePath, changes: gitignore.changes, contents: gitignore.text });
  const lines = writePlannedFiles(root, files, options.dryRun === true);
  lines.push(
    setup.launcher.kind === "path"
      ? `note: the hooks and the MCP server run ${setup.launcher.path}; whoever works from another copy runs init from there`
      : "note: the hooks and the MCP server run node_modules/.bin/shared-ctx, found from the session's folder upwards",
  );
  if (options.subfolder === undefined) {
    lines.push(
      "note: a session started in a subfolder reads only that folder's .claude/settings.json: add --subfolder DIR for each folder sessions start in (the MCP server and the store are found from any subfolder)",
    );
  }
  deps.stdout.write(`${lines.join("\n")}\n`);
}

/** `dir` (relative to the cwd) as a folder inside the repository, relative to it. */
function subfolderOf(root: string, dir: string, deps: CliDeps): string {
  const inside = relative(root, resolve(deps.cwd, dir));
  if (inside.startsWith("..") || isAbsolute(inside)) {
    throw new UsageError(`--subfolder ${dir}: not a folder inside the repository ${root}`);
  }
  return inside;
}
