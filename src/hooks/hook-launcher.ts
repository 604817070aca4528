/**
 * How a harness starts shared-ctx: the command lines `init` writes into its settings. Pure: the
 * launcher in, shell text and JSON out.
 *
 * A hook whose binary is missing must never fail in silence: Claude Code treats exit 127 (the shell's
 * "command not found") as a non-blocking error, so the edit would go through and nobody be told. So
 * every hook runs through a small POSIX `sh` guard that finds the binary, runs it, and when it cannot
 * be run (missing, not executable: 126 or 127) tells the model and the person, then allows or
 * refuses as `hooks.whenStoreDown` says: the store cannot be reached without the binary either.
 */

/** Where the shared-ctx executable is. */
export type Launcher =
  /** An absolute path (`<clone>/bin/shared-ctx.js`) or a name on PATH, run as one word. */
  | { readonly kind: "path"; readonly path: string }
  /**
   * The project's own install: `node_modules/.bin/shared-ctx`, looked for from the session's
   * project folder ($CLAUDE_PROJECT_DIR, else the working folder) upwards, so a session in a
   * subfolder or a worktree inside the repository finds it too.
   */
  | { readonly kind: "project" };

/** The project-installed binary, relative to a folder that holds node_modules. */
export const projectBin = "node_modules/.bin/shared-ctx";

/** What a missing binary does to a hook call: `hooks.whenStoreDown`'s two answers. */
export type WhenMissing = "allow" | "deny";

/** Quotes a word for the shell only when it needs it. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** What the guard script says the binary is, for a person reading the message. */
function describe(launcher: Launcher): string {
  return launcher.kind === "path"
    ? launcher.path
    : `${projectBin} (looked for from the project folder upwards)`;
}

/** How to make the binary runnable again. */
function fix(launcher: Launcher): string {
  return launcher.kind === "path"
    ? `build shared-ctx where it lives (npm install there), or run \`shared-ctx init claude-code\` again from where it is now`
    : `run npm install in the project (shared-ctx is one of its devDependencies), or run \`shared-ctx init claude-code\` again`;
}

/** The sh lines that set `b` to the binary to run. */
function findBinary(launcher: Launcher): string {
  if (launcher.kind === "path") return `b=${shellWord(launcher.path)}`;
  return [
    // Shell expansion, not a template: the session's project folder, else the working folder.
    ["d=", '"$', '{CLAUDE_PROJECT_DIR:-$PWD}"'].join(""),
    `b=${projectBin}`,
    `while :; do if [ -x "$d/${projectBin}" ]; then b="$d/${projectBin}"; break; fi; [ "$d" = / ] && break; d=$(dirname "$d"); done`,
  ].join("; ");
}

/** The message a hook gives when the binary cannot be run. */
export function missingBinaryMessage(launcher: Launcher, whenMissing: WhenMissing): string {
  const outcome =
    whenMissing === "deny"
      ? 'so this call is refused (hooks.whenStoreDown = "deny")'
      : 'and this call went through UNCHECKED against the shared decisions and claims (hooks.whenStoreDown = "allow")';
  return `shared-ctx: cannot run ${describe(launcher)} (missing or not executable), ${outcome}. Fix: ${fix(launcher)}.`;
}

/**
 * The shell command of one hook: the guard around `<bin> <args…>`. With `deny`, a missing binary
 * exits 2 with the message on stderr (Claude Code blocks the call and gives the model the text);
 * with `allow`, it exits 0 with the message as the person's `systemMessage` and the model's
 * `additionalContext`. Any other exit of the binary is passed on as it is.
 * @param event the harness event name the JSON answer carries (`PreToolUse`)
 */
export function guardedHookCommand(
  launcher: Launcher,
  args: readonly string[],
  event: string,
  whenMissing: WhenMissing,
): string {
  const message = missingBinaryMessage(launcher, whenMissing);
  const onMissing =
    whenMissing === "deny"
      ? `printf '%s\\n' ${shellWord(message)} >&2; exit 2`
      : `printf '%s\\n' ${shellWord(
          JSON.stringify({
            systemMessage: message,
            hookSpecificOutput: { hookEventName: event, additionalContext: message },
          }),
        )}; exit 0`;
  const script = [
    findBinary(launcher),
    // Run, not exec: its exit status is read, and 126/127 mean it never ran.
    'if command -v "$b" >/dev/null 2>&1; then "$b" "$@"; s=$?; [ $s -ne 126 ] && [ $s -ne 127 ] && exit $s; fi',
    onMissing,
  ].join("; ");
  // `shared-ctx` is the script's $0 (its name in error messages); the rest are its "$@".
  return ["sh", "-c", shellWord(script), "shared-ctx", ...args.map(shellWord)].join(" ");
}

/**
 * How an MCP client config starts the server (`{ command, args }`, no shell there): the path
 * itself, or, for the project's install, an `sh` that finds it upwards from the project folder
 * and says what is missing when it is not there (the client then shows the server as failed).
 */
export function serverCommand(
  launcher: Launcher,
  args: readonly string[],
): { command: string; args: string[] } {
  if (launcher.kind === "path") return { command: launcher.path, args: [...args] };
  const script = [
    findBinary(launcher),
    'if [ -x "$b" ]; then exec "$b" "$@"; fi',
    `printf '%s\\n' ${shellWord(`shared-ctx: cannot run ${describe(launcher)}. Fix: ${fix(launcher)}.`)} >&2; exit 1`,
  ].join("; ");
  return { command: "sh", args: ["-c", script, "shared-ctx", ...args] };
}
