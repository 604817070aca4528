import { join } from "node:path";
import { Command } from "commander";
import { type Launcher, shellWord } from "../../hooks/hook-launcher.js";
import type { CliDeps } from "../cli-deps.js";
import { type HookCommandOptions, resolveHookProject } from "../hook-runtime.js";
import { packageRoot } from "../version.js";
import {
  jsonText,
  launcherOf,
  readJsonFile,
  readTextFile,
  writePlannedFiles,
} from "./init-files.js";

interface InitGeminiCliOptions extends Omit<HookCommandOptions, "agent"> {
  dryRun?: boolean;
  command?: string;
}

/** How a Gemini CLI hook finds the project's own shared-ctx (unquoted: the CLI quotes it). */
const projectBin = "$GEMINI_PROJECT_DIR/node_modules/.bin/shared-ctx";

/**
 * `shared-ctx init gemini-cli [--dry-run]`: writes the edit hooks and the MCP server into
 * `<root>/.gemini/settings.json` (merged into what is there), adds the store's folder to
 * `.gitignore`, and prints what it changed and what Gemini CLI needs besides. Idempotent.
 */
export function makeInitGeminiCliCommand(deps: CliDeps): Command {
  return new Command("gemini-cli")
    .description(
      "write the shared-ctx edit hooks (BeforeTool, AfterTool, SessionStart) and MCP server into .gemini/settings.json",
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
      "the shared-ctx executable the hooks and the MCP server run (default: the one running now: the project's node_modules/.bin/shared-ctx when installed there, else this bin's absolute path)",
    )
    .action((options: InitGeminiCliOptions) => initGeminiCli(options, deps));
}

async function initGeminiCli(options: InitGeminiCliOptions, deps: CliDeps): Promise<void> {
  const [{ mergeGeminiSettings }, { mergeGitignore }] = await Promise.all([
    import("../../hooks/gemini-cli-settings.js"),
    import("../../hooks/claude-code-settings.js"),
  ]);
  const { root, project } = resolveHookProject(options, deps);
  const subject = options.subject ?? project.subject;
  const flags = [
    ...(subject !== undefined ? ["--subject", subject] : []),
    ...(options.db !== undefined ? ["--db", options.db] : []),
    ...(options.url !== undefined ? ["--store", "statewave", "--url", options.url] : []),
  ];
  // The command init itself runs as (init-files.ts launcherOf): never npx of a name not installed.
  const launcher = launcherOf(root, packageRoot(), options.command);
  const { bin, mcp } = geminiLaunch(launcher);
  const settingsPath = join(root, ".gemini", "settings.json");
  const settings = mergeGeminiSettings(readJsonFile(settingsPath), { bin, mcp, flags });
  const gitignorePath = join(root, ".gitignore");
  const gitignore = mergeGitignore(readTextFile(gitignorePath));
  const lines = writePlannedFiles(
    root,
    [
      { path: settingsPath, changes: settings.changes, contents: jsonText(settings.settings) },
      { path: gitignorePath, changes: gitignore.changes, contents: gitignore.text },
    ],
    options.dryRun === true,
  );
  lines.push(...geminiNotes(root, launcher.kind === "project" ? undefined : launcher.path));
  deps.stdout.write(`${lines.join("\n")}\n`);
}

/**
 * How Gemini CLI's hooks and MCP server start shared-ctx: the given path, or the project's install
 * (Gemini CLI starts in the repository, the only folder it reads settings from, so the MCP
 * server's relative path holds there).
 */
export function geminiLaunch(launcher: Launcher): {
  bin: string;
  mcp: { command: string; args: string[] };
} {
  if (launcher.kind === "path") {
    return { bin: shellWord(launcher.path), mcp: { command: launcher.path, args: [] } };
  }
  return { bin: projectBin, mcp: { command: "node_modules/.bin/shared-ctx", args: [] } };
}

/** What a Gemini CLI user must know besides the file: where it starts, trust, the first run. */
function geminiNotes(root: string, binPath: string | undefined): string[] {
  return [
    `note: Gemini CLI reads project settings only from .gemini/settings.json in the folder it starts in: start gemini in ${root} (a session started in a subfolder runs none of these hooks, and its edits go through unchecked)`,
    "note: Gemini CLI reads project settings, and so runs these hooks, only in a trusted folder: trust it (or set GEMINI_CLI_TRUST_WORKSPACE=true); --skip-trust runs a headless session WITHOUT them, its edits unchecked. The first run prints a warning naming these project hooks, then runs them",
    binPath === undefined
      ? "note: the hooks and the MCP server run node_modules/.bin/shared-ctx in the repository; a missing binary blocks every matched edit in Gemini CLI"
      : `note: the hooks and the MCP server run ${binPath}; whoever works from another copy runs init from there (a missing binary blocks every matched edit in Gemini CLI)`,
  ];
}
