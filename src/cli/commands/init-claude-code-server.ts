import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import type { CliDeps } from "../cli-deps.js";
import { UsageError } from "../fatal-error.js";
import { type HookCommandOptions, resolveHookProject } from "../hook-runtime.js";
import { readJson } from "./init.js";

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
  const localBin = existsSync(join(root, "node_modules", ".bin", "shared-ctx"));
  const bin =
    options.command ??
    (localBin ? '"$CLAUDE_PROJECT_DIR"/node_modules/.bin/shared-ctx' : "shared-ctx");
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
  const settings = mergeClaudeHttpSettings(readJson(settingsPath), setup);
  const mcp = mergeMcpHttpConfig(readJson(mcpPath), setup);
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
