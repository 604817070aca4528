import { render } from "ink";
import { DemoApp } from "./app.js";
import type { ScenarioChoice } from "./components/scenario-picker.js";
import { ThemeProvider } from "./contexts/theme-context.js";
import type { LoadTimeline } from "./hooks/use-timeline-loader.js";
import type { StartDemoRuns } from "./run-source.js";
import { createTheme } from "./theme/tokens.js";

/**
 * How the demo ended: `interrupt` for Ctrl-C (a key in the raw-mode terminal, not a signal, so the
 * CLI exits 130 itself), `quit` for `q` or an abort of `signal`.
 */
export type DemoEnding = "quit" | "interrupt";

/** Options of {@link renderDemo}. */
export interface RenderDemoOptions {
  readonly stdout: NodeJS.WriteStream;
  readonly stdin?: NodeJS.ReadStream;
  /** @default false */
  readonly noColor?: boolean;
  readonly initialScenario: string;
  readonly scenarios: readonly ScenarioChoice[];
  readonly start: StartDemoRuns;
  readonly loadTimeline: LoadTimeline;
  readonly speed?: number;
  /** Unmounts the UI (SIGINT/SIGTERM). */
  readonly signal?: AbortSignal;
}

/**
 * Runs the interactive demo until the user quits (`q`, Ctrl-C) or `signal` aborts. Ink restores the
 * terminal (raw mode, cursor) on unmount; the caller then stops the runs and closes the store.
 */
export async function renderDemo(options: RenderDemoOptions): Promise<DemoEnding> {
  const instance = render(
    <ThemeProvider theme={createTheme({ noColor: options.noColor })}>
      <DemoApp
        initialScenario={options.initialScenario}
        scenarios={options.scenarios}
        start={options.start}
        loadTimeline={options.loadTimeline}
        speed={options.speed}
      />
    </ThemeProvider>,
    {
      stdout: options.stdout,
      stdin: options.stdin,
      patchConsole: false,
      // The app handles Ctrl-C itself, so quitting always goes through the same clean exit.
      exitOnCtrlC: false,
    },
  );
  const onAbort = () => instance.unmount();
  if (options.signal?.aborted) instance.unmount();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const value = await instance.waitUntilExit();
    return value === "interrupt" ? "interrupt" : "quit";
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}
