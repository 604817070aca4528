import { isAbsolute, resolve } from "node:path";
import type { HookInput } from "./hook-input.js";

/**
 * Gemini CLI's hook input read as the edit hooks read Claude Code's. Gemini CLI 0.61.0 sends
 * `BeforeTool`/`AfterTool` (for Claude Code's `PreToolUse`/`PostToolUse`) with its own tools:
 * `write_file` (`file_path`, `content`), `replace` (`file_path`, `old_string`, `new_string`) and
 * `run_shell_command` (`command`, optional `dir_path`: the folder the command runs in). Its
 * `file_path` is the model's argument as written: relative to `cwd` or absolute
 * (../shared/fixtures/gemini-cli-0.61.0/README.md). Pure: no file system.
 */

/** Gemini CLI's hook events, by the Claude Code event the edit hooks answer. */
export const geminiCliEvents = {
  PreToolUse: "BeforeTool",
  PostToolUse: "AfterTool",
  SessionStart: "SessionStart",
} as const;

/** The Gemini CLI tools that change files, by the Claude Code tool whose input they match. */
const geminiTools: Readonly<Record<string, string>> = {
  write_file: "Write",
  replace: "Edit",
  run_shell_command: "Bash",
};

/** The Gemini CLI tools `init gemini-cli` hooks (a matcher is a regular expression there). */
export const geminiEditTools = Object.keys(geminiTools);

/** Events only Gemini CLI sends: an input with one of them is Gemini's whatever the flags say. */
export const geminiOnlyEvents: ReadonlySet<string> = new Set([
  "BeforeTool",
  "AfterTool",
  "SessionEnd",
  "BeforeAgent",
  "AfterAgent",
  "BeforeModel",
  "AfterModel",
  "BeforeToolSelection",
]);

/**
 * The input with Gemini's tool named as its Claude Code counterpart and its paths made absolute:
 * `file_path` against `cwd`, and a shell command's `cwd` moved into `dir_path`, so that the
 * relative paths its command writes resolve where the command runs. Another tool (an MCP tool,
 * `read_file`) keeps its name: it changes no file.
 */
export function fromGeminiInput(input: HookInput): HookInput {
  const claudeTool = input.toolName === undefined ? undefined : geminiTools[input.toolName];
  if (claudeTool === undefined) return input;
  const cwd = input.cwd;
  const toolInput: Record<string, unknown> = { ...input.toolInput };
  const filePath = toolInput.file_path;
  if (typeof filePath === "string" && filePath && cwd !== undefined && !isAbsolute(filePath)) {
    toolInput.file_path = resolve(cwd, filePath);
  }
  const dirPath = toolInput.dir_path;
  const commandCwd =
    claudeTool === "Bash" && typeof dirPath === "string" && dirPath && cwd !== undefined
      ? resolve(cwd, dirPath)
      : cwd;
  return {
    ...input,
    toolName: claudeTool,
    toolInput,
    ...(commandCwd !== undefined ? { cwd: commandCwd } : {}),
  };
}
