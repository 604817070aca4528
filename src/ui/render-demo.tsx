import { render } from "ink";
import { DemoApp } from "./app.js";
import type { ScenarioChoice } from "./components/scenario-picker.js";
import { ThemeProvider } from "./contexts/theme-context.js";
import type { LoadTimeline } from "./hooks/use-timeline-loader.js";
import type { StartDemoRuns } from "./run-source.js";
import { scrollbackSafe } from "./scrollback-safe-stdout.js";
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
  /**
   * The command that shows a run's timeline, with the store flags the demo was started with.
   * @default `shared-ctx timeline <run-id>`
   */
  readonly timelineCommand?: (runId: string) => string;
  /** Quits the UI (SIGINT/SIGTERM), leaving its summary on screen as `q` does. */
  readonly signal?: AbortSignal;
}

/** An abort that the app has not turned into its summary by then unmounts it as it is. */
const abortGraceMs = 1000;

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
        timelineCommand={options.timelineCommand}
        quitSignal={options.signal}
      />
    </ThemeProvider>,
    {
      // Never erase the user's scrollback, whatever Ink decides to clear.
      stdout: scrollbackSafe(options.stdout),
      stdin: options.stdin,
      patchConsole: false,
      // The app handles Ctrl-C itself, so quitting always goes through the same clean exit.
      exitOnCtrlC: false,
    },
  );
  // The app quits on abort itself (drawing its summary); this only covers an app that cannot.
  let grace: NodeJS.Timeout | undefined;
  const onAbort = () => {
    grace = setTimeout(() => instance.unmount(), abortGraceMs);
    grace.unref();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const value = await instance.waitUntilExit();
    return value === "interrupt" ? "interrupt" : "quit";
  } finally {
    clearTimeout(grace);
    options.signal?.removeEventListener("abort", onAbort);
  }
}
