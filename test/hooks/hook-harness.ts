import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { Command, CommanderError } from "commander";
import type { CliDeps } from "../../src/cli/cli-deps.js";
import { makeCheckCommand } from "../../src/cli/commands/check.js";
import { makeHookCommand } from "../../src/cli/commands/hook.js";
import { reportError } from "../../src/cli/error-report.js";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../src/context/shared-context.js";

/**
 * Hook input in Claude Code's documented shape (https://code.claude.com/docs/en/hooks, "Hook
 * input" / "PreToolUse input"): common fields plus `tool_name` and `tool_input` with an absolute
 * `file_path`.
 */
export function toolPayload(
  event: "PreToolUse" | "PostToolUse",
  sessionId: string,
  root: string,
  tool: string,
  toolInput: Record<string, unknown>,
): Record<string, unknown> {
  return {
    session_id: sessionId,
    transcript_path: join(root, ".claude", "transcripts", `${sessionId}.jsonl`),
    cwd: root,
    permission_mode: "default",
    hook_event_name: event,
    tool_name: tool,
    tool_input: toolInput,
    ...(event === "PostToolUse"
      ? { tool_response: { filePath: toolInput.file_path, success: true } }
      : {}),
  };
}

/** An `Edit` of `file` (relative to the root), in Claude Code's shape. */
export function editPayload(
  event: "PreToolUse" | "PostToolUse",
  sessionId: string,
  root: string,
  file: string,
): Record<string, unknown> {
  return toolPayload(event, sessionId, root, "Edit", {
    file_path: join(root, file),
    old_string: "export {}",
    new_string: "export const total = 1;",
    replace_all: false,
  });
}

/** What one hook run printed, its exit code and its stdout parsed (undefined when empty). */
export interface HookRun {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
  // biome-ignore lint/suspicious/noExplicitAny: the hook's JSON as the harness reads it
  readonly output: any;
}

/** Runs `shared-ctx <argv>` (hook or check) in-process with `stdin` as standard input. */
export async function runHookCli(
  argv: readonly string[],
  options: { stdin?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<HookRun> {
  let stdout = "";
  let stderr = "";
  const deps: CliDeps = {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    ...(options.stdin !== undefined
      ? { stdin: Readable.from([Buffer.from(options.stdin)]) as unknown as NodeJS.ReadStream }
      : {}),
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    signal: new AbortController().signal,
  };
  const program = new Command("shared-ctx")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => deps.stdout.write(text),
      writeErr: (text) => deps.stderr.write(text),
    })
    .addCommand(makeHookCommand(deps))
    .addCommand(makeCheckCommand(deps));
  for (const command of program.commands) {
    command.exitOverride();
    for (const child of command.commands) child.exitOverride();
  }
  let exitCode: number = ExitCode.ok;
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    exitCode =
      error instanceof CommanderError
        ? error.exitCode === 0
          ? ExitCode.ok
          : ExitCode.usage
        : reportError(error, deps);
  }
  return { stdout, stderr, exitCode, output: stdout.trim() ? JSON.parse(stdout) : undefined };
}

/** A fresh repository: `.git`, the given files, and optionally shared-ctx.config.json. */
export function makeRepository(root: string, files: readonly string[], config?: unknown): string {
  mkdirSync(join(root, ".git"), { recursive: true });
  for (const file of files) {
    mkdirSync(join(root, file, ".."), { recursive: true });
    writeFileSync(join(root, file), "export {}\n");
  }
  if (config !== undefined)
    writeFileSync(join(root, "shared-ctx.config.json"), JSON.stringify(config));
  return root;
}

/**
 * `author`'s architectural decision on `target`, recorded on subject "acme" in the store at `db`:
 * what an earlier session left for the hook to find.
 */
export async function recordDecision(
  db: string,
  decision: { readonly author: string; readonly content: string; readonly target: string },
): Promise<void> {
  const store = new EmbeddedStore({ path: db });
  try {
    const shared = new SharedContext({ store, subjectId: "acme" });
    await shared.decide(decision.author, decision.content, {
      kind: "architectural_decision",
      target: decision.target,
    });
    await shared.close();
  } finally {
    await store.close();
  }
}
