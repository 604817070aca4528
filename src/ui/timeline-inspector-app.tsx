import { useApp, useInput } from "ink";
import { useEffect, useMemo, useReducer, useState } from "react";
import { TimelineInspector } from "./components/timeline-inspector.js";
import { agentDirectoryOf } from "./format/agent-directory.js";
import { inspectorAgents, inspectorPage, nextSectionLine } from "./format/inspector-lines.js";
import type { RunTimeline } from "./format/run-timeline.js";
import type { TimelineClock } from "./format/timeline-table.js";
import { useTerminalSize } from "./hooks/use-terminal-size.js";
import { initialInspectorState, inspectorReducer } from "./state/inspector-reducer.js";

/** Delivers the run's timeline again whenever it grows; returns the unsubscribe function. */
export type WatchTimeline = (onChange: (timeline: RunTimeline) => void) => () => void;

/** Props of {@link TimelineInspectorApp}. */
export type TimelineInspectorAppProps = {
  /** The run's timeline as read when the command started. */
  readonly timeline: RunTimeline;
  /** @default "scenario" */
  readonly clock?: TimelineClock;
  /** Start following (the newest rows stay in view as they arrive). @default false */
  readonly follow?: boolean;
  /** Live updates (`f`): without it the timeline is what was read at the start. */
  readonly watch?: WatchTimeline;
};

/**
 * The timeline inspector: keys and live updates wired to the pure `inspectorReducer`; everything
 * drawn by `TimelineInspector`.
 */
export function TimelineInspectorApp(props: TimelineInspectorAppProps) {
  const { exit } = useApp();
  const { columns, rows } = useTerminalSize();
  const [timeline, setTimeline] = useState(props.timeline);
  const [state, dispatch] = useReducer(
    inspectorReducer,
    props.follow ?? false,
    initialInspectorState,
  );
  const agents = useMemo(() => inspectorAgents(timeline), [timeline]);
  const directory = useMemo(() => agentDirectoryOf(timeline.events), [timeline]);
  const agent = state.agentIndex >= 0 ? agents[state.agentIndex] : undefined;
  const page = useMemo(
    () =>
      inspectorPage(timeline, {
        width: columns,
        clock: props.clock ?? "scenario",
        agentId: agent?.id,
        search: state.search,
        sections: !state.follow,
      }),
    [timeline, columns, props.clock, agent?.id, state.search, state.follow],
  );
  // The heading, the status line, the key hints and one spare row (a frame as tall as the screen
  // makes Ink clear the terminal).
  const height = Math.max(3, rows - page.heading.length - 3);
  const maxScroll = Math.max(0, page.lines.length - height);

  const { watch } = props;
  useEffect(() => {
    if (!watch) return;
    let cancelled = false;
    const unsubscribe = watch((next) => {
      if (!cancelled) setTimeline(next);
    });
    return () => {
      cancelled = true;
      unsubscribe();
    };
  }, [watch]);
  useEffect(() => {
    dispatch({ type: "rows-change", maxScroll });
  }, [maxScroll]);

  useInput((input, key) => {
    if (state.draft !== undefined) {
      if (key.return) dispatch({ type: "search-apply" });
      else if (key.escape) dispatch({ type: "search-cancel" });
      else if (key.backspace || key.delete) dispatch({ type: "search-erase" });
      else if (input && !key.ctrl && !key.meta) dispatch({ type: "search-type", text: input });
      return;
    }
    if (input === "q" || key.escape || (key.ctrl && input === "c")) exit();
    else if (key.upArrow || input === "k") dispatch({ type: "scroll", delta: -1, maxScroll });
    else if (key.downArrow || input === "j") dispatch({ type: "scroll", delta: 1, maxScroll });
    else if (key.pageUp) dispatch({ type: "scroll", delta: -height, maxScroll });
    else if (key.pageDown || input === " ") dispatch({ type: "scroll", delta: height, maxScroll });
    else if (input === "g" || key.home) dispatch({ type: "scroll-to", line: 0, maxScroll });
    else if (input === "G" || key.end) dispatch({ type: "scroll-to", line: maxScroll, maxScroll });
    else if (input === "/") dispatch({ type: "search-start" });
    else if (input === "a") dispatch({ type: "agent-cycle", count: agents.length });
    else if (input === "s") {
      const line = nextSectionLine(page, state.scroll, maxScroll);
      dispatch({ type: "scroll-to", line, maxScroll });
    } else if (input === "f") dispatch({ type: "follow-toggle", maxScroll });
  });

  return (
    <TimelineInspector
      page={page}
      state={state}
      height={height}
      agents={directory}
      agentName={agent?.name}
    />
  );
}
