import { Box, useApp } from "ink";
import { useEffect, useReducer } from "react";
import { messageOf } from "../errors.js";
import type { RunMode } from "../scenario/scenario-events.js";
import { RunPane } from "./components/run-pane.js";
import { useSpinner } from "./hooks/use-spinner.js";
import { useTerminalSize } from "./hooks/use-terminal-size.js";
import { compactBelowRows, paneChromeRows } from "./layout/demo-layout.js";
import type { RunEventSource } from "./run-source.js";
import { initialRunPaneState, runPaneReducer } from "./state/run-pane-reducer.js";

export type RunLiveAppProps = {
  readonly source: RunEventSource;
  /** The pane's title before run-start arrives. */
  readonly mode: RunMode;
};

/** One pipeline's live pane (`shared-ctx run` in a terminal); exits once the run has ended. */
export function RunLiveApp({ source, mode }: RunLiveAppProps) {
  const { exit } = useApp();
  const [pane, dispatch] = useReducer(runPaneReducer, mode, initialRunPaneState);
  const { columns, rows } = useTerminalSize();
  const spinner = useSpinner(pane.summary === undefined && pane.error === undefined);

  useEffect(() => {
    let cancelled = false;
    const unsubscribe = source.subscribe((event) => {
      if (!cancelled) dispatch({ type: "run-event", event });
    });
    source.done.catch((error: unknown) => {
      if (!cancelled) dispatch({ type: "run-fail", message: messageOf(error) });
    });
    return () => {
      cancelled = true;
      unsubscribe();
    };
  }, [source]);

  const ended = pane.summary !== undefined || pane.error !== undefined;
  useEffect(() => {
    // Leave the final frame (with its verdict) on screen, then hand the terminal back.
    if (ended) exit();
  }, [ended, exit]);

  // As the demo: never taller than the terminal (one row spare), compact verdict below 35 rows,
  // and the log gives way first.
  const compact = rows < compactBelowRows;
  const chrome = paneChromeRows(pane, columns - 4, { compact, foldStatus: false });
  const logRows = Math.max(0, rows - 1 - chrome);
  return (
    <Box flexDirection="column" width={columns}>
      <RunPane pane={pane} width={columns} logRows={logRows} spinner={spinner} compact={compact} />
    </Box>
  );
}
