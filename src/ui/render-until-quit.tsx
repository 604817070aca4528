import { render } from "ink";
import type { ReactNode } from "react";
import { ThemeProvider } from "./contexts/theme-context.js";
import { scrollbackSafe } from "./scrollback-safe-stdout.js";
import { createTheme } from "./theme/tokens.js";

/** Where and how {@link renderUntilQuit} draws. */
export interface RenderUntilQuitOptions {
  readonly stdout: NodeJS.WriteStream;
  readonly stdin?: NodeJS.ReadStream;
  /** @default false */
  readonly noColor?: boolean;
  /** Unmounts the screen (SIGINT/SIGTERM). */
  readonly signal?: AbortSignal;
}

/**
 * Draws a screen that quits on its own keys (Ctrl-C included, so Ink's own exit is off) until it
 * does, or until `signal` aborts: the one way the timeline inspector and `watch` are shown.
 */
export async function renderUntilQuit(
  screen: ReactNode,
  options: RenderUntilQuitOptions,
): Promise<void> {
  const instance = render(
    <ThemeProvider theme={createTheme({ noColor: options.noColor })}>{screen}</ThemeProvider>,
    {
      stdout: scrollbackSafe(options.stdout),
      stdin: options.stdin,
      patchConsole: false,
      exitOnCtrlC: false,
    },
  );
  const onAbort = () => instance.unmount();
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await instance.waitUntilExit();
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}
