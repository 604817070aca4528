import { render } from "ink";
import { ThemeProvider } from "./contexts/theme-context.js";
import type { RunTimeline } from "./format/run-timeline.js";
import type { TimelineClock } from "./format/timeline-table.js";
import { scrollbackSafe } from "./scrollback-safe-stdout.js";
import { createTheme } from "./theme/tokens.js";
import { TimelineInspectorApp, type WatchTimeline } from "./timeline-inspector-app.js";

/** Options of {@link renderTimelineInspector}. */
export interface RenderTimelineOptions {
  readonly stdout: NodeJS.WriteStream;
  readonly stdin?: NodeJS.ReadStream;
  readonly timeline: RunTimeline;
  /** @default "scenario" */
  readonly clock?: TimelineClock;
  /** @default false */
  readonly noColor?: boolean;
  /** Start following. @default false */
  readonly follow?: boolean;
  /** Live updates of the timeline. */
  readonly watch?: WatchTimeline;
  /** Unmounts the inspector (SIGINT/SIGTERM). */
  readonly signal?: AbortSignal;
}

/** Runs the timeline inspector until the user quits (`q`, Esc, Ctrl-C) or `signal` aborts. */
export async function renderTimelineInspector(options: RenderTimelineOptions): Promise<void> {
  const instance = render(
    <ThemeProvider theme={createTheme({ noColor: options.noColor })}>
      <TimelineInspectorApp
        timeline={options.timeline}
        clock={options.clock}
        follow={options.follow}
        watch={options.watch}
      />
    </ThemeProvider>,
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
