import type { CliDeps } from "../../src/cli/cli-deps.js";

/** CLI deps whose output is kept, read back with `stdout()` and `stderr()`. */
export interface CapturedCliDeps {
  readonly deps: CliDeps;
  readonly cwd: string;
  stdout(): string;
  stderr(): string;
}

/**
 * Deps for a CLI command run in the test's process: what it prints is kept, `env` and `signal`
 * default to none, and `isTTY` (when given) is what both streams say they are.
 */
export function capturedCliDeps(options: {
  cwd: string;
  env?: Record<string, string>;
  signal?: AbortSignal;
  isTTY?: boolean;
}): CapturedCliDeps {
  let out = "";
  let err = "";
  const tty = options.isTTY === undefined ? {} : { isTTY: options.isTTY };
  const deps: CliDeps = {
    stdout: { write: (chunk: string) => (out += chunk), ...tty },
    stderr: { write: (chunk: string) => (err += chunk), ...tty },
    env: options.env ?? {},
    cwd: options.cwd,
    signal: options.signal ?? new AbortController().signal,
  };
  return { deps, cwd: options.cwd, stdout: () => out, stderr: () => err };
}
