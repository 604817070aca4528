import { DemoScreen } from "../../src/ui/components/demo-screen.js";
import type { DemoState } from "../../src/ui/state/demo-reducer.js";
import { renderAt } from "./render-ink.js";

/** The demo screen's frame for `state` at a terminal size, with no scenario list and no timeline. */
export function renderDemoScreen(
  state: DemoState,
  size: { columns: number; rows: number; timelineHeight: number },
): string {
  return renderAt(
    <DemoScreen
      state={state}
      columns={size.columns}
      rows={size.rows}
      spinner="⠋"
      scenarios={[]}
      timelineLines={[]}
      timelineHeight={size.timelineHeight}
    />,
    size.columns,
  );
}
