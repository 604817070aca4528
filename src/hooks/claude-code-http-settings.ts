import { editTools } from "./edit-targets.js";

/**
 * What `shared-ctx init claude-code --server URL` writes: Claude Code's HTTP hooks
 * (https://code.claude.com/docs/en/hooks, "HTTP hook fields": `{ type: "http", url, headers,
 * allowedEnvVars, timeout }`, the input posted as the body, header values filled from the
 * variables `allowedEnvVars` lists) for `PreToolUse`/`PostToolUse`, pointing at `shared-ctx serve`;
 * one `SessionStart` command hook (`hook session-start --server URL`) that starts the server when it
 * is down and forwards the session's start to it; and `.mcp.json`'s server as Claude Code's HTTP
 * transport (`{ type: "http", url, headers }`, `${VAR:-default}` expanded). Replaces the command
 * hooks of a plain `init claude-code` (and the other way round). Pure: JSON in, JSON out.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonRecord = { [key: string]: Json };

/** What the written entries point at and run. */
export interface ClaudeCodeServerSetup {
  /** The server's base URL, no trailing slash: `http://127.0.0.1:8100`. */
  readonly server: string;
  /** The shared subject (the MCP route needs one). */
  readonly subject: string;
  /** How the SessionStart command starts shared-ctx. */
  readonly bin: string;
  /** Extra flags of the SessionStart command (`--subject x`), already split. */
  readonly flags: readonly string[];
  /**
   * The project (shared-ctx.config.json's JSON: modules, hooks) sent with every hook call, for a
   * server on another machine that cannot read the client's folders. @default none: read there
   */
  readonly project?: string;
}

/** Seconds Claude Code waits for one of our hooks. */
const timeoutSeconds = 10;

/** Environment variables the HTTP hooks may put into their headers. */
export const hookHeaderVariables = ["SHARED_CTX_API_KEY", "SHARED_CTX_AGENT"] as const;

function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a settings hook entry is one of ours: a command hook or an HTTP hook to our route. */
function isOurHook(hook: Json): boolean {
  if (!isRecord(hook)) return false;
  if (typeof hook.url === "string") return /\/hooks\/claude-code(?:[?#]|$)/.test(hook.url);
  return (
    typeof hook.command === "string" &&
    /shared-ctx/.test(hook.command) &&
    / hook (?:pre-tool-use|post-tool-use|session-start)\b/.test(hook.command)
  );
}

/** Our hook of `event`. */
function ourHook(event: string, setup: ClaudeCodeServerSetup): JsonRecord {
  if (event === "SessionStart") {
    return {
      type: "command",
      command: [setup.bin, "hook", "session-start", "--server", setup.server, ...setup.flags].join(
        " ",
      ),
      timeout: timeoutSeconds,
    };
  }
  return {
    type: "http",
    url: `${setup.server}/hooks/claude-code?subject=${encodeURIComponent(setup.subject)}`,
    headers: {
      "X-API-Key": "$SHARED_CTX_API_KEY",
      "X-Shared-Ctx-Agent": "$SHARED_CTX_AGENT",
      ...(setup.project !== undefined ? { "X-Shared-Ctx-Project": setup.project } : {}),
    },
    allowedEnvVars: [...hookHeaderVariables],
    timeout: timeoutSeconds,
  };
}

/** The settings with our HTTP hooks in place, and what changed (one line per change). */
export function mergeClaudeHttpSettings(
  existing: unknown,
  setup: ClaudeCodeServerSetup,
): { settings: JsonRecord; changes: string[] } {
  const settings: JsonRecord = isRecord(existing) ? structuredClone(existing) : {};
  const hooks: JsonRecord = isRecord(settings.hooks) ? settings.hooks : {};
  const changes: string[] = [];
  for (const event of ["SessionStart", "PreToolUse", "PostToolUse"]) {
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as Json[]) : [];
    const before = JSON.stringify(groups);
    const kept = groups.flatMap((group): Json[] => {
      if (!isRecord(group) || !Array.isArray(group.hooks)) return [group];
      const others = group.hooks.filter((hook) => !isOurHook(hook));
      if (others.length === group.hooks.length) return [group];
      return others.length > 0 ? [{ ...group, hooks: others }] : [];
    });
    const hook = ourHook(event, setup);
    const ours: JsonRecord = {
      ...(event !== "SessionStart" ? { matcher: editTools.join("|") } : {}),
      hooks: [hook],
    };
    const next = [...kept, ours];
    if (JSON.stringify(next) !== before) {
      const shown = hook.type === "http" ? `http POST ${String(hook.url)}` : String(hook.command);
      changes.push(
        `hooks.${event}: ${kept.length === groups.length ? "added" : "updated"} ${shown}`,
      );
    }
    hooks[event] = next;
  }
  settings.hooks = hooks;
  return { settings, changes };
}

/** `.mcp.json` with our server as Claude Code's HTTP transport to `serve`'s `/mcp`. */
export function mergeMcpHttpConfig(
  existing: unknown,
  setup: ClaudeCodeServerSetup,
): { config: JsonRecord; changes: string[] } {
  const config: JsonRecord = isRecord(existing) ? structuredClone(existing) : {};
  const servers: JsonRecord = isRecord(config.mcpServers) ? config.mcpServers : {};
  // Claude Code expands ${VAR:-default} in .mcp.json: the agent name the hooks use too.
  const dollar = "$";
  const entry: JsonRecord = {
    type: "http",
    url: `${setup.server}/mcp?subject=${encodeURIComponent(setup.subject)}`,
    headers: {
      "X-API-Key": `${dollar}{SHARED_CTX_API_KEY:-}`,
      "X-Shared-Ctx-Agent": `${dollar}{SHARED_CTX_AGENT:-claude}`,
    },
  };
  const before = servers["shared-ctx"];
  const changes =
    JSON.stringify(before) === JSON.stringify(entry)
      ? []
      : [
          `mcpServers.shared-ctx: ${before === undefined ? "added" : "updated"} http ${String(entry.url)}`,
        ];
  servers["shared-ctx"] = entry;
  config.mcpServers = servers;
  return { config, changes };
}
