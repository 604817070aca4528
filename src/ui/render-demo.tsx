import { render } from "ink";
import type { RunMode } from "../scenario/scenario-events.js";
import { DemoApp, type DemoExit } from "./app.js";
import type { ScenarioChoice } from "./components/scenario-picker.js";
import { ThemeProvider } from "./contexts/theme-context.js";
import { formatDemoEnding } from "./format/demo-ending.js";
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
  /**
   * Lists what `s` offers. Called once the first frame is drawn (reading and validating every
   * shipped scenario is work the first frame need not wait for); until it resolves the picker
   * offers nothing. A rejection ends the demo with that error.
   */
  readonly loadScenarios: () => Promise<readonly ScenarioChoice[]>;
  readonly start: StartDemoRuns;
  /**
   * Called once the first frame is drawn: prepares what `start` and `loadTimeline` need (the
   * demo opens its store here, so the first frame does not wait for it). A rejection ends the demo
   * with that error. @default nothing to prepare
   */
  readonly ready?: () => Promise<unknown>;
  readonly loadTimeline: LoadTimeline;
  readonly speed?: number;
  /** The left pane's mode (`--baseline`), titled right from the first frame. @default "naive" */
  readonly baselineMode?: RunMode;
  /**
   * The command that shows a run's timeline, with the store flags the demo was started with.
   * @default `shared-ctx timeline <run-id>`
   */
  readonly timelineCommand?: (runId: string) => string;
  /** Quits the UI (SIGINT/SIGTERM), leaving its ending on screen as `q` does. */
  readonly signal?: AbortSignal;
}

/** An abort that the app has not turned into its summary by then unmounts it as it is. */
const abortGraceMs = 1000;

/**
 * Runs the interactive demo until the user quits (`q`, Ctrl-C) or `signal` aborts. Ink restores the
 * terminal (raw mode, cursor) on unmount; the caller then stops the runs and closes the store.
 */
export async function renderDemo(options: RenderDemoOptions): Promise<DemoEnding> {
  const theme = createTheme({ noColor: options.noColor });
  const app = (scenarios: readonly ScenarioChoice[]) => (
    <ThemeProvider theme={theme}>
      <DemoApp
        initialScenario={options.initialScenario}
        scenarios={scenarios}
        start={options.start}
        loadTimeline={options.loadTimeline}
        speed={options.speed}
        {...(options.baselineMode ? { baselineMode: options.baselineMode } : {})}
        quitSignal={options.signal}
      />
    </ThemeProvider>
  );
  const instance = render(app([]), {
    // Never erase the user's scrollback, whatever Ink decides to clear.
    stdout: scrollbackSafe(options.stdout),
    stdin: options.stdin,
    patchConsole: false,
    // The app handles Ctrl-C itself, so quitting always goes through the same clean exit.
    exitOnCtrlC: false,
  });
  // Ink drew the first frame synchronously inside render(): what the runs need (the store), then
  // the scenarios `s` lists.
  let unmounted = false;
  options.ready?.().catch((error: unknown) => {
    if (!unmounted) instance.unmount(error instanceof Error ? error : new Error(String(error)));
  });
  options.loadScenarios().then(
    (scenarios) => {
      if (!unmounted) instance.rerender(app(scenarios));
    },
    (error: unknown) => {
      if (!unmounted) instance.unmount(error instanceof Error ? error : new Error(String(error)));
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
    const value = (await instance.waitUntilExit()) as DemoExit | undefined;
    if (value === undefined) return "quit";
    // Ink has restored the terminal: the ending is ordinary output from here on, wrapped to the
    // width the terminal has now, so it stays on screen and in the scrollback.
    const lines = formatDemoEnding(value.panes, {
      width: options.stdout.columns || 80,
      scenario: value.scenario,
      timelineCommand: options.timelineCommand ?? ((runId) => `shared-ctx timeline ${runId}`),
    });
    options.stdout.write(`${lines.join("\n")}\n`);
    return value.ending;
  } finally {
    unmounted = true;
    clearTimeout(grace);
    options.signal?.removeEventListener("abort", onAbort);
  }
}
