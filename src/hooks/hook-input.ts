import { HookInputError } from "./errors/hook-input-error.js";
import { normaliseAgentName } from "./session-name.js";

/**
 * The JSON a coding harness's hook receives on stdin, in Claude Code's documented shape (hooks
 * reference, https://code.claude.com/docs/en/hooks, "Hook input"): common fields `session_id`,
 * `transcript_path`, `cwd`, `hook_event_name`; `PreToolUse`/`PostToolUse` add `tool_name` and
 * `tool_input` (file paths absolute), `PostToolUse` adds `tool_response`, `SessionStart` adds
 * `source` (`startup`, `resume`, `clear`, `compact`). Checked by hand, not with zod: this runs
 * on every edit, and start-up time is the budget (see `bench startup`).
 */
export interface HookInput {
  readonly sessionId: string;
  readonly transcriptPath?: string;
  readonly cwd?: string;
  readonly hookEventName?: string;
  readonly toolName?: string;
  /** The tool's arguments as the harness sent them (a JSON object). */
  readonly toolInput: Readonly<Record<string, unknown>>;
  /** `SessionStart`'s `source`. */
  readonly source?: string;
  /**
   * `agent_id`: set only when the hook fires inside a subagent (Claude Code's common input
   * fields). A subagent shares its parent's `session_id`, so this is what tells them apart.
   */
  readonly agentId?: string;
  /** `tool_use_id`: which tool call a `PreToolUse` and its `PostToolUse` are about. */
  readonly toolUseId?: string;
  /** `agent_type`: the subagent's type (`general-purpose`, a custom agent's name), when set. */
  readonly agentType?: string;
}

function optionalString(raw: Record<string, unknown>, field: string): string | undefined {
  const value = raw[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new HookInputError(field, "expected a string");
  return value;
}

/**
 * Parses the hook's stdin.
 * @throws HookInputError naming the field (not JSON, not an object, a field of the wrong type)
 */
export function parseHookInput(text: string): HookInput {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new HookInputError("", `not JSON (${(error as Error).message})`, { cause: error });
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new HookInputError("", "expected a JSON object");
  }
  const record = raw as Record<string, unknown>;
  const sessionId = optionalString(record, "session_id");
  const toolInput = record.tool_input;
  if (
    toolInput !== undefined &&
    (typeof toolInput !== "object" || toolInput === null || Array.isArray(toolInput))
  ) {
    throw new HookInputError("tool_input", "expected a JSON object");
  }
  const transcriptPath = optionalString(record, "transcript_path");
  const cwd = optionalString(record, "cwd");
  const hookEventName = optionalString(record, "hook_event_name");
  const toolName = optionalString(record, "tool_name");
  const source = optionalString(record, "source");
  const agentId = optionalString(record, "agent_id");
  const agentType = optionalString(record, "agent_type");
  const toolUseId = optionalString(record, "tool_use_id");
  return {
    sessionId: sessionId ?? "",
    ...(transcriptPath !== undefined ? { transcriptPath } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    ...(hookEventName !== undefined ? { hookEventName } : {}),
    ...(toolName !== undefined ? { toolName } : {}),
    toolInput: (toolInput as Record<string, unknown> | undefined) ?? {},
    ...(source !== undefined ? { source } : {}),
    ...(agentId ? { agentId } : {}),
    ...(agentType ? { agentType } : {}),
    ...(toolUseId ? { toolUseId } : {}),
  };
}

/**
 * Who a hook call acts for: `--agent` as given; else `$SHARED_CTX_AGENT`, else the session id, and
 * inside a subagent that name with `/<agent_id>` (Claude Code gives subagents their parent's
 * `session_id`, so without it a session's parallel subagents would be one agent). Empty when there
 * is no name at all.
 */
export function hookAgentId(
  input: HookInput,
  flag: string | undefined,
  environment: string | undefined,
): string {
  // Each part normalised apart (see session-name.ts): a subagent's name stays `<session>/<agent>`.
  if (flag) return normaliseAgentName(flag);
  const base = normaliseAgentName(environment || input.sessionId);
  if (!base) return "";
  return input.agentId ? `${base}/${normaliseAgentName(input.agentId)}` : base;
}
