import type { RunTimeline } from "./format/run-timeline.js";
import type { TimelineClock } from "./format/timeline-table.js";
import { renderUntilQuit } from "./render-until-quit.js";
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
  await renderUntilQuit(
    <TimelineInspectorApp
      timeline={options.timeline}
      clock={options.clock}
      follow={options.follow}
      watch={options.watch}
    />,
    options,
  );
}
