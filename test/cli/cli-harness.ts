import { Command, CommanderError } from "commander";
import type { CliDeps } from "../../src/cli/cli-deps.js";
import { reportError } from "../../src/cli/error-report.js";
import { ExitCode } from "../../src/cli/exit-codes.js";

/** A CLI run's output and exit code. */
export interface CliResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/**
 * Runs one subcommand the way `runCli` does (commander with exitOverride, errors mapped by
 * `reportError`), with buffered streams, without loading every other command.
 */
export async function runCommand(
  make: (deps: CliDeps) => Command,
  argv: readonly string[],
  options: BufferedRunOptions = {},
): Promise<CliResult> {
  const { deps, output } = bufferedDeps(options);
  const program = new Command("shared-ctx")
    .exitOverride()
    .configureOutput({ writeOut: deps.stdout.write, writeErr: deps.stderr.write })
    .addCommand(make(deps));
  try {
    await program.parseAsync([...argv], { from: "user" });
    return { ...output(), exitCode: ExitCode.ok };
  } catch (error) {
    if (error instanceof CommanderError) {
      return { ...output(), exitCode: error.exitCode === 0 ? ExitCode.ok : ExitCode.usage };
    }
    const exitCode = reportError(error, deps);
    return { ...output(), exitCode };
  }
}

/** Options of a buffered CLI run. */
export interface BufferedRunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  signal?: AbortSignal;
  /** Called with all of stdout so far after every write (to act on a line as it appears). */
  onStdout?: (text: string) => void;
}

/** CLI deps whose stdout and stderr are buffered; `output()` reads what was written so far. */
export function bufferedDeps(options: BufferedRunOptions = {}): {
  deps: CliDeps;
  output: () => { stdout: string; stderr: string };
} {
  let stdout = "";
  let stderr = "";
  const deps: CliDeps = {
    stdout: {
      write: (chunk: string) => {
        stdout += chunk;
        options.onStdout?.(stdout);
        return true;
      },
    },
    stderr: {
      write: (chunk: string) => {
        stderr += chunk;
        return true;
      },
    },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    signal: options.signal ?? new AbortController().signal,
  };
  return { deps, output: () => ({ stdout, stderr }) };
}

/** The whole CLI (`runCli`, every command registered) with buffered streams. */
export async function runWholeCli(
  argv: readonly string[],
  options: BufferedRunOptions = {},
): Promise<CliResult> {
  // Loaded here: runCommand's callers should not pay for every command's module.
  const { runCli } = await import("../../src/cli/main.js");
  const { deps, output } = bufferedDeps(options);
  const exitCode = await runCli(argv, deps);
  return { ...output(), exitCode };
}
