/** A stream the CLI writes to: process.stdout in production, a buffer in tests. */
export interface OutputStream {
  write(chunk: string): unknown;
  /** True when a person is watching a terminal: the Ink UI is used only then. */
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/**
 * Everything the CLI takes from the outside world, injected so commands can be tested
 * without a terminal, a real clock or the process environment.
 */
export interface CliDeps {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly stdin?: NodeJS.ReadStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Aborted on SIGINT/SIGTERM, so long-running commands (serve, demo, --follow) shut down cleanly. */
  readonly signal: AbortSignal;
}
