import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import type { Launcher } from "../../hooks/hook-launcher.js";
import { UsageError } from "../fatal-error.js";

/**
 * What every `init <harness>` writer shares: reading the files it merges into, writing only what
 * changed (and printing what), and the command the written entries run. One writer per harness
 * (init-claude-code.ts, …) builds its files and hands them here.
 */

/** A file's JSON, undefined when it is missing or empty. @throws UsageError naming the file */
export function readJsonFile(path: string): unknown {
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, "utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${path} is not valid JSON (${(error as Error).message}); fix it, then run again`,
      { cause: error },
    );
  }
}

/** A JSON file's contents as init writes them: two-space indented, with a final newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A file's text, undefined when it is missing. */
export function readTextFile(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

/** One file a writer wants: its path, what changes (one line each) and its new contents. */
export interface PlannedFile {
  readonly path: string;
  readonly changes: readonly string[];
  readonly contents: string;
}

/**
 * Writes the files that change (none with `dryRun`) and returns the lines that say so, each
 * named relative to `root`.
 */
export function writePlannedFiles(
  root: string,
  files: readonly PlannedFile[],
  dryRun: boolean,
): string[] {
  const lines: string[] = [];
  for (const { path, changes, contents } of files) {
    const name = relative(root, path);
    if (changes.length === 0) {
      lines.push(`${name}: unchanged`);
      continue;
    }
    lines.push(
      `${name}:${dryRun ? " (dry run, not written)" : ""}`,
      ...changes.map((change) => `  ${change}`),
    );
    if (!dryRun) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, contents);
    }
  }
  return lines;
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * `--command` as the hooks will run it: one executable, a name on PATH or a path that exists
 * (`node /x/shared-ctx.js` would be quoted as one word and never run: every hook would then fail).
 * @throws UsageError naming --command
 */
function checkedCommand(command: string): string {
  if (command.trim() === "")
    throw new UsageError("--command: expected the shared-ctx executable, got nothing");
  if (!command.includes("/")) return command;
  if (!existsSync(command)) {
    throw new UsageError(
      `--command ${command}: no such file (give the shared-ctx executable itself, e.g. /path/to/shared-ctx/bin/shared-ctx.js, not a command line)`,
    );
  }
  return command;
}

/**
 * The command `init` itself was run with, as the written entries should run it: `--command` as
 * given; the project's install (`node_modules/.bin/shared-ctx`, found from any subfolder or
 * worktree inside the repository) when this shared-ctx is a `node_modules` package of the project
 * or of a folder above it; else this very bin's absolute path (a clone, a global install). Never
 * `npx` of a name that may not be installed.
 * @param self the folder shared-ctx runs from (see `packageRoot`)
 */
export function launcherOf(root: string, self: string, command?: string): Launcher {
  if (command !== undefined) return { kind: "path", path: checkedCommand(command) };
  const real = realpathOr(self);
  const parts = real.split(sep);
  const at = parts.lastIndexOf("node_modules");
  if (at > 0) {
    const owner = parts.slice(0, at).join(sep) || sep;
    const project = realpathOr(root);
    if (project === owner || project.startsWith(`${owner}${sep}`)) return { kind: "project" };
  }
  return { kind: "path", path: join(real, "bin", "shared-ctx.js") };
}
