import { render } from "ink";
import type { RunMode } from "../scenario/scenario-events.js";
import { ThemeProvider } from "./contexts/theme-context.js";
import { RunLiveApp } from "./run-live-app.js";
import type { RunEventSource } from "./run-source.js";
import { scrollbackSafe } from "./scrollback-safe-stdout.js";
import { createTheme } from "./theme/tokens.js";

/** Options of {@link renderRunLive}. */
export interface RenderRunLiveOptions {
  /** The terminal to draw on (a TTY: the caller falls back to plain output otherwise). */
  readonly stdout: NodeJS.WriteStream;
  readonly stdin?: NodeJS.ReadStream;
  /** Draw without colour (NO_COLOR or --no-color). @default false */
  readonly noColor?: boolean;
  /** The pane's title until the run announces itself. @default inferred from the run id */
  readonly mode?: RunMode;
  /** Stops drawing (the run itself is the caller's to abort). */
  readonly signal?: AbortSignal;
}

/**
 * Draws one run live in the terminal: agent-coloured lines, a status row per agent, and the verdict
 * box once it ends. Resolves when the run has ended (or failed, or `signal` aborted) and the final
 * frame is on screen. Used by `shared-ctx run` when stdout is a TTY and `--json` is not set.
 */
export async function renderRunLive(
  handle: RunEventSource,
  options: RenderRunLiveOptions,
): Promise<void> {
  const mode = options.mode ?? (handle.runId.startsWith("nv-") ? "naive" : "statewave");
  const instance = render(
    <ThemeProvider theme={createTheme({ noColor: options.noColor })}>
      <RunLiveApp source={handle} mode={mode} />
    </ThemeProvider>,
    // Never erase the user's scrollback, whatever Ink decides to clear.
    { stdout: scrollbackSafe(options.stdout), stdin: options.stdin, patchConsole: false },
  );
  const onAbort = () => instance.unmount();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await instance.waitUntilExit();
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}
