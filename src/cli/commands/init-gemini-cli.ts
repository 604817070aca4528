import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { type HookCommandOptions, resolveHookProject } from "../hook-runtime.js";
import { readJson } from "./init.js";

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
      "how the hooks start shared-ctx (default: the project's node_modules/.bin/shared-ctx, else `shared-ctx` on PATH)",
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
  const localBin = existsSync(join(root, "node_modules", ".bin", "shared-ctx"));
  const bin = options.command ?? (localBin ? projectBin : "shared-ctx");
  const words = options.command?.split(/\s+/).filter(Boolean) ?? [];
  const [first, ...rest] = words;
  const mcp =
    first === undefined ? { command: "npx", args: ["shared-ctx"] } : { command: first, args: rest };
  const settingsPath = join(root, ".gemini", "settings.json");
  const settings = mergeGeminiSettings(readJson(settingsPath), { bin, mcp, flags });
  const gitignorePath = join(root, ".gitignore");
  const gitignore = mergeGitignore(
    existsSync(gitignorePath) ? readFileSync(gitignorePath, "utf8") : undefined,
  );
  const lines: string[] = [];
  for (const [path, changes, contents] of [
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
  lines.push(...geminiNotes(root, localBin || options.command !== undefined));
  deps.stdout.write(`${lines.join("\n")}\n`);
}

/** What a Gemini CLI user must know besides the file: where it starts, trust, the first run. */
function geminiNotes(root: string, pinned: boolean): string[] {
  return [
    `note: Gemini CLI reads project settings only from .gemini/settings.json in the folder it starts in: start gemini in ${root} (a session started in a subfolder runs none of these hooks, and its edits go through unchecked)`,
    "note: Gemini CLI reads project settings, and so runs these hooks, only in a trusted folder: trust it (or set GEMINI_CLI_TRUST_WORKSPACE=true); --skip-trust runs a headless session WITHOUT them, its edits unchecked. The first run prints a warning naming these project hooks, then runs them",
    ...(pinned
      ? []
      : [
          "note: shared-ctx is not in this project's node_modules; the hooks run `shared-ctx` from PATH, and a missing binary blocks every matched edit in Gemini CLI (npm install -D shared-ctx, then run this again, to pin it)",
        ]),
  ];
}
