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
  options: {
    env?: Record<string, string | undefined>;
    cwd?: string;
    signal?: AbortSignal;
    onStdout?: (text: string) => void;
  } = {},
): Promise<CliResult> {
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
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    signal: options.signal ?? new AbortController().signal,
  };
  const program = new Command("shared-ctx")
    .exitOverride()
    .configureOutput({ writeOut: (text) => (stdout += text), writeErr: (text) => (stderr += text) })
    .addCommand(make(deps));
  try {
    await program.parseAsync([...argv], { from: "user" });
    return { stdout, stderr, exitCode: ExitCode.ok };
  } catch (error) {
    if (error instanceof CommanderError) {
      return { stdout, stderr, exitCode: error.exitCode === 0 ? ExitCode.ok : ExitCode.usage };
    }
    const exitCode = reportError(error, deps);
    return { stdout, stderr, exitCode };
  }
}
