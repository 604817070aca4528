import { basename, join } from "node:path";
import { shellWord } from "../../hooks/hook-launcher.js";
import type { CliDeps } from "../cli-deps.js";
import { UsageError } from "../fatal-error.js";
import { type HookCommandOptions, resolveHookProject } from "../hook-runtime.js";
import { packageRoot } from "../version.js";
import {
  jsonText,
  launcherOf,
  readJsonFile,
  readTextFile,
  writePlannedFiles,
} from "./init-files.js";

/** The options of `init claude-code` this variant reads. */
export interface InitServerOptions extends Omit<HookCommandOptions, "agent"> {
  dryRun?: boolean;
  command?: string;
  server: string;
}

/** The server's base URL, or a usage error naming --server. */
function serverBase(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `--server ${text}: expected an http:// or https:// URL, e.g. http://127.0.0.1:8100`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`--server ${text}: expected an http:// or https:// URL`);
  }
  return url;
}

function isLoopback(url: URL): boolean {
  return ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

/**
 * `shared-ctx init claude-code --server URL`: Claude Code's HTTP hooks and HTTP MCP entry, pointing
 * at `shared-ctx serve` (see claude-code-http-settings.ts), and what the user must know about the
 * server: how it is started, and that a server that is down lets edits through.
 */
export async function initClaudeCodeServer(
  options: InitServerOptions,
  deps: CliDeps,
): Promise<void> {
  const [{ mergeClaudeHttpSettings, mergeMcpHttpConfig }, { mergeGitignore }] = await Promise.all([
    import("../../hooks/claude-code-http-settings.js"),
    import("../../hooks/claude-code-settings.js"),
  ]);
  const url = serverBase(options.server);
  const server = url.origin;
  const { root, project } = resolveHookProject(options, deps);
  const subject = options.subject ?? project.subject ?? basename(root);
  const local = isLoopback(url);
  // The command init itself runs as (init-files.ts launcherOf): never npx of a name not installed.
  const launcher = launcherOf(root, packageRoot(), options.command);
  const bin =
    launcher.kind === "path"
      ? shellWord(launcher.path)
      : '"$CLAUDE_PROJECT_DIR"/node_modules/.bin/shared-ctx';
  // A server on another machine cannot read this repository: the modules travel with each call.
  const projectHeader = local
    ? undefined
    : JSON.stringify({
        modules: Object.fromEntries(
          project.modules.map((module) => [module.name, [...module.globs]]),
        ),
        hooks: project.hooks,
      });
  const setup = {
    server,
    subject,
    bin,
    flags: ["--subject", subject, ...(options.db !== undefined ? ["--db", options.db] : [])],
    ...(projectHeader !== undefined ? { project: projectHeader } : {}),
  };
  const settingsPath = join(root, ".claude", "settings.json");
  const mcpPath = join(root, ".mcp.json");
  const gitignorePath = join(root, ".gitignore");
  const settings = mergeClaudeHttpSettings(readJsonFile(settingsPath), setup);
  const mcp = mergeMcpHttpConfig(readJsonFile(mcpPath), setup);
  const gitignore = mergeGitignore(readTextFile(gitignorePath));
  const lines = writePlannedFiles(
    root,
    [
      { path: mcpPath, changes: mcp.changes, contents: jsonText(mcp.config) },
      { path: settingsPath, changes: settings.changes, contents: jsonText(settings.settings) },
      { path: gitignorePath, changes: gitignore.changes, contents: gitignore.text },
    ],
    options.dryRun === true,
  );
  lines.push(
    `note: edits are checked by HTTP hooks posted to ${server}/hooks/claude-code: no process starts per edit`,
    local
      ? `note: the SessionStart hook starts \`shared-ctx serve\` on ${server} (store ${join(root, ".shared-ctx", "store.db")}) when it is not up, and it keeps running in the background; or start it yourself first: shared-ctx serve --port ${url.port || "80"}`
      : `note: ${server} is another machine's server: keep it running there (shared-ctx serve --host 0.0.0.0, with SHARED_CTX_API_KEY). The project's ${project.modules.length} modules travel with each hook call (X-Shared-Ctx-Project): run this again after changing them`,
    "note: when the server is down, Claude Code treats the failed HTTP hook as a non-blocking error and the edit goes through UNCHECKED; the SessionStart hook tells the session when it cannot reach the server",
    "note: a server that needs a key: export SHARED_CTX_API_KEY where claude starts; the hooks send it as X-API-Key (allowedEnvVars) (and .mcp.json expands it in its header)",
  );
  deps.stdout.write(`${lines.join("\n")}\n`);
}
