import { geminiEditTools } from "./gemini-cli-input.js";

/**
 * What `shared-ctx init gemini-cli` writes into `<root>/.gemini/settings.json`, merged into what
 * is there (Gemini CLI 0.61.0, ../shared/fixtures/gemini-cli-0.61.0/README.md):
 * - `hooks.<Event>`: `[{ matcher?, hooks: [{ type: "command", command, name, timeout }] }]`, the
 *   timeout in **milliseconds** (a Claude-style `10` is 10 ms: the hook times out and the write
 *   happens); a tool matcher is a regular expression, unanchored, so ours is anchored;
 * - `mcpServers["shared-ctx"]`: `{ command, args }` (a stdio server; its tools reach the model as
 *   `mcp_shared-ctx_<tool>`), or `{ httpUrl, headers }` for the one `shared-ctx serve` answers.
 * Idempotent: our entries are recognised by their command (or name) and replaced in place,
 * everything else is kept. Pure: JSON in, JSON out.
 */

/** The Gemini CLI events we hook, with the hook subcommand each runs. */
export const geminiCliHooks = [
  { event: "SessionStart", subcommand: "session-start", matcher: undefined },
  { event: "BeforeTool", subcommand: "pre-tool-use", matcher: `^(${geminiEditTools.join("|")})$` },
  { event: "AfterTool", subcommand: "post-tool-use", matcher: `^(${geminiEditTools.join("|")})$` },
] as const;

/** Milliseconds Gemini CLI waits for one of our hooks (a timed-out hook never blocks). */
export const geminiHookTimeoutMs = 10_000;

/** Gemini CLI's `${VAR:-default}` expansion in settings.json (not a JavaScript template). */
const agentVariable = ["$", "{SHARED_CTX_AGENT:-gemini}"].join("");

/** What the written entries run. */
export interface GeminiCliSetup {
  /** How a hook starts shared-ctx: `$GEMINI_PROJECT_DIR/node_modules/.bin/shared-ctx` (unquoted:
   * Gemini CLI shell-quotes the value it substitutes). */
  readonly bin: string;
  /** How the MCP server is started (a command and the arguments before `mcp`), or its URL. */
  readonly mcp:
    | { readonly command: string; readonly args: readonly string[] }
    | { readonly httpUrl: string; readonly headers?: Readonly<Record<string, string>> };
  /** Extra flags for every command (`--subject x`, `--db …`), already split. */
  readonly flags: readonly string[];
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonRecord = { [key: string]: Json };

function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Quotes a word for the shell only when it needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./$-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The shell command of one of our Gemini CLI hooks. */
export function geminiHookCommandLine(setup: GeminiCliSetup, subcommand: string): string {
  return [
    setup.bin,
    "hook",
    subcommand,
    "--harness",
    "gemini-cli",
    ...setup.flags.map(shellWord),
  ].join(" ");
}

/** Whether a settings hook entry is one of ours (any version of it). */
function isOurHook(hook: Json): boolean {
  return (
    isRecord(hook) &&
    ((typeof hook.name === "string" && hook.name.startsWith("shared-ctx ")) ||
      (typeof hook.command === "string" &&
        /shared-ctx/.test(hook.command) &&
        / hook (?:pre-tool-use|post-tool-use|session-start)\b/.test(hook.command)))
  );
}

/** The settings with our hooks and MCP server in place, and what changed (one line per change). */
export function mergeGeminiSettings(
  existing: unknown,
  setup: GeminiCliSetup,
): { settings: JsonRecord; changes: string[] } {
  const settings: JsonRecord = isRecord(existing) ? structuredClone(existing) : {};
  const hooks: JsonRecord = isRecord(settings.hooks) ? settings.hooks : {};
  const changes: string[] = [];
  for (const { event, subcommand, matcher } of geminiCliHooks) {
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as Json[]) : [];
    const before = JSON.stringify(groups);
    const kept = groups.flatMap((group): Json[] => {
      if (!isRecord(group) || !Array.isArray(group.hooks)) return [group];
      const others = group.hooks.filter((hook) => !isOurHook(hook));
      if (others.length === group.hooks.length) return [group];
      return others.length > 0 ? [{ ...group, hooks: others }] : [];
    });
    const command = geminiHookCommandLine(setup, subcommand);
    const ours: JsonRecord = {
      ...(matcher !== undefined ? { matcher } : {}),
      hooks: [
        {
          type: "command",
          command,
          name: `shared-ctx ${subcommand}`,
          timeout: geminiHookTimeoutMs,
        },
      ],
    };
    const next = [...kept, ours];
    if (JSON.stringify(next) !== before) {
      changes.push(
        `hooks.${event}: ${kept.length === groups.length ? "added" : "updated"} ${command}`,
      );
    }
    hooks[event] = next;
  }
  settings.hooks = hooks;
  const servers: JsonRecord = isRecord(settings.mcpServers) ? settings.mcpServers : {};
  const entry: JsonRecord =
    "httpUrl" in setup.mcp
      ? {
          httpUrl: setup.mcp.httpUrl,
          ...(setup.mcp.headers ? { headers: { ...setup.mcp.headers } } : {}),
        }
      : {
          command: setup.mcp.command,
          // Gemini CLI expands ${VAR:-default} when settings load: one agent name per terminal,
          // shared with the hooks (which read SHARED_CTX_AGENT first).
          args: [...setup.mcp.args, "mcp", ...setup.flags, "--agent", agentVariable],
        };
  const previous = servers["shared-ctx"];
  if (JSON.stringify(previous) !== JSON.stringify(entry)) {
    const shown =
      "httpUrl" in entry
        ? String(entry.httpUrl)
        : [entry.command, ...(entry.args as string[])].join(" ");
    changes.push(`mcpServers.shared-ctx: ${previous === undefined ? "added" : "updated"} ${shown}`);
  }
  servers["shared-ctx"] = entry;
  settings.mcpServers = servers;
  return { settings, changes };
}
