import { editTools } from "./edit-targets.js";
import {
  guardedHookCommand,
  type Launcher,
  projectBin,
  serverCommand,
  shellWord,
  type WhenMissing,
} from "./hook-launcher.js";

/**
 * What `shared-ctx init claude-code` writes into a repository, merged into what is there:
 * - `.claude/settings.json` → `hooks` (Claude Code settings, https://code.claude.com/docs/en/hooks
 *   "Configuration": `hooks: { <Event>: [{ matcher?, hooks: [{ type: "command", command, timeout? }] }] }`);
 * - `.mcp.json` → `mcpServers["shared-ctx"]` (project MCP servers, https://code.claude.com/docs/en/mcp
 *   "Project scope": `{ mcpServers: { <name>: { command, args, env? } } }`).
 * Idempotent: our entries are recognised by their command and replaced, everything else is kept
 * in place, so running it twice gives the same files. Pure: JSON in, JSON out.
 */

/** The Claude Code events we hook, with the hook subcommand each runs. */
export const claudeCodeHooks = [
  { event: "SessionStart", subcommand: "session-start", matcher: undefined },
  { event: "PreToolUse", subcommand: "pre-tool-use", matcher: editTools.join("|") },
  { event: "PostToolUse", subcommand: "post-tool-use", matcher: editTools.join("|") },
] as const;

/** Seconds Claude Code waits for one of our hooks (its default is 60; ours answer in well under 1). */
export const hookTimeoutSeconds = 10;

/** What the written entries run. */
export interface ClaudeCodeSetup {
  /** Where the shared-ctx executable is (see hook-launcher.ts). */
  readonly launcher: Launcher;
  /** Extra flags for every command (`--subject x`, `--db …`), already split. */
  readonly flags: readonly string[];
  /** What a hook does when the executable cannot be run: `hooks.whenStoreDown`. */
  readonly whenMissing: WhenMissing;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonRecord = { [key: string]: Json };

function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The shell command of one of our hooks: the guarded launcher (see hook-launcher.ts). */
export function hookCommandLine(
  setup: ClaudeCodeSetup,
  subcommand: (typeof claudeCodeHooks)[number]["subcommand"],
): string {
  const event = claudeCodeHooks.find((hook) => hook.subcommand === subcommand)?.event ?? "";
  return guardedHookCommand(
    setup.launcher,
    ["hook", subcommand, ...setup.flags],
    event,
    setup.whenMissing,
  );
}

/** One of our hooks in a few words, for what `init` prints: `<bin> hook <name> <flags>`. */
export function hookSummary(setup: ClaudeCodeSetup, subcommand: string): string {
  const bin = setup.launcher.kind === "path" ? setup.launcher.path : projectBin;
  return [bin, "hook", subcommand, ...setup.flags.map(shellWord)].join(" ");
}

/** Whether a settings hook entry is one of ours (any version of it: the bin or flags may differ). */
function isOurHook(hook: Json): boolean {
  return (
    isRecord(hook) &&
    typeof hook.command === "string" &&
    /shared-ctx/.test(hook.command) &&
    / hook (?:pre-tool-use|post-tool-use|session-start)\b/.test(hook.command)
  );
}

/** The settings with our hooks in place, and what changed (one line per change). */
export function mergeClaudeSettings(
  existing: unknown,
  setup: ClaudeCodeSetup,
): { settings: JsonRecord; changes: string[] } {
  const settings: JsonRecord = isRecord(existing) ? structuredClone(existing) : {};
  const hooks: JsonRecord = isRecord(settings.hooks) ? settings.hooks : {};
  const changes: string[] = [];
  for (const { event, subcommand, matcher } of claudeCodeHooks) {
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as Json[]) : [];
    const before = JSON.stringify(groups);
    // Ours out of every group (dropping groups left empty), then ours once at the end.
    const kept = groups.flatMap((group): Json[] => {
      if (!isRecord(group) || !Array.isArray(group.hooks)) return [group];
      const others = group.hooks.filter((hook) => !isOurHook(hook));
      if (others.length === group.hooks.length) return [group];
      return others.length > 0 ? [{ ...group, hooks: others }] : [];
    });
    const ours: JsonRecord = {
      ...(matcher !== undefined ? { matcher } : {}),
      hooks: [
        {
          type: "command",
          command: hookCommandLine(setup, subcommand),
          timeout: hookTimeoutSeconds,
        },
      ],
    };
    const next = [...kept, ours];
    if (JSON.stringify(next) !== before) {
      changes.push(
        `hooks.${event}: ${groups.length === kept.length && before === JSON.stringify(kept) ? "added" : "updated"} ${hookSummary(setup, subcommand)}`,
      );
    }
    hooks[event] = next;
  }
  settings.hooks = hooks;
  return { settings, changes };
}

/** The `.mcp.json` with our server in place, and what changed. */
export function mergeMcpConfig(
  existing: unknown,
  setup: ClaudeCodeSetup,
): { config: JsonRecord; changes: string[] } {
  const config: JsonRecord = isRecord(existing) ? structuredClone(existing) : {};
  const servers: JsonRecord = isRecord(config.mcpServers) ? config.mcpServers : {};
  // No --agent: the server names itself as the hooks do (SHARED_CTX_AGENT, else the session id
  // Claude Code gives both), so a session's decisions are its own at the edit.
  const entry: JsonRecord = serverCommand(setup.launcher, ["mcp", ...setup.flags]);
  const before = servers["shared-ctx"];
  const changes =
    JSON.stringify(before) === JSON.stringify(entry)
      ? []
      : [
          `mcpServers.shared-ctx: ${before === undefined ? "added" : "updated"} ${[setup.launcher.kind === "path" ? setup.launcher.path : projectBin, "mcp", ...setup.flags.map(shellWord)].join(" ")}`,
        ];
  servers["shared-ctx"] = entry;
  config.mcpServers = servers;
  return { config, changes };
}

/** The folder the embedded store lives in (`<root>/.shared-ctx/store.db`), as .gitignore names it. */
export const storeFolderPattern = ".shared-ctx/";

/**
 * `.gitignore` with the store's folder ignored: the store is each machine's own, and a committed
 * SQLite file would be a merge conflict on every edit. Idempotent: a line that already ignores the
 * folder (`.shared-ctx`, `.shared-ctx/`, `/.shared-ctx/`, `.shared-ctx/*`…) leaves the file as it is.
 * Pure: the file's text (undefined when there is none) in, the new text and what changed out.
 */
export function mergeGitignore(text: string | undefined): {
  readonly text: string;
  readonly changes: readonly string[];
} {
  const current = text ?? "";
  const ignored = current
    .split(/\r?\n/)
    .map((line) => line.trim())
    .some((line) => /^\/?\.shared-ctx(?:\/\*{0,2})?$/.test(line));
  if (ignored) return { text: current, changes: [] };
  const separator = current === "" || current.endsWith("\n") ? "" : "\n";
  return {
    text: `${current}${separator}${storeFolderPattern}\n`,
    changes: [
      `added ${storeFolderPattern} (the embedded store: each machine's own, never committed)`,
    ],
  };
}
