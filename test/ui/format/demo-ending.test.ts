import { describe, expect, it } from "vitest";
import type { ScenarioEvent } from "../../../src/scenario/scenario-events.js";
import { formatDemoEnding, wrapIndented } from "../../../src/ui/format/demo-ending.js";
import { textWidth } from "../../../src/ui/format/text-width.js";
import { verdictFor } from "../../../src/ui/format/verdict.js";
import { initialRunPaneState, runPaneReducer } from "../../../src/ui/state/run-pane-reducer.js";
import { naiveCollisionEvents, statewaveAvoidedEvents } from "../../support/fixtures/run-events.js";

function paneOf(events: readonly ScenarioEvent[], mode: "naive" | "statewave") {
  let pane = initialRunPaneState(mode);
  for (const event of events) pane = runPaneReducer(pane, { type: "run-event", event });
  return pane;
}

const command = (runId: string) => `shared-ctx timeline ${runId} --db /a/rather/long/path/store.db`;

describe("formatDemoEnding", () => {
  it.each([40, 60, 80, 120])(
    "at %i columns: every line fits but the command, every word kept",
    (width) => {
      const panes = [
        paneOf(naiveCollisionEvents(), "naive"),
        paneOf(statewaveAvoidedEvents(), "statewave"),
      ] as const;
      const lines = formatDemoEnding(panes, {
        width,
        scenario: "auth-jwt",
        timelineCommand: command,
      });
      const commandLine = `  ${command("sw-4e5f6a7b")}`;
      expect(lines.at(-1)).toBe(commandLine);
      for (const line of lines.slice(0, -1)) expect(textWidth(line)).toBeLessThanOrEqual(width);
      const words = lines.join(" ").replace(/\s+/g, " ");
      for (const pane of panes) {
        const verdict = verdictFor(pane.summary!, pane.events);
        expect(words).toContain(verdict.title.replace(/\s+/g, " "));
        for (const detail of verdict.details) expect(words).toContain(detail.replace(/\s+/g, " "));
      }
      expect(words).toContain("Comparison");
      expect(words).not.toContain("…");
    },
  );

  it("says what a pane that did not finish did, and leaves the comparison out", () => {
    const running = paneOf(statewaveAvoidedEvents().slice(0, 3), "statewave");
    const lines = formatDemoEnding([initialRunPaneState("broadcast"), running], {
      width: 80,
      scenario: "late-decision",
      timelineCommand: command,
    });
    expect(lines).toContain("Not started.");
    expect(lines).toContain("Stopped before its end.");
    expect(lines.join("\n")).not.toContain("Comparison");
  });
});

describe("wrapIndented", () => {
  it("keeps a line's indent and hangs its continuation two further", () => {
    expect(wrapIndented("  Why: the decision landed after the agent last looked", 30)).toEqual([
      "  Why: the decision landed",
      "    after the agent last",
      "    looked",
    ]);
    expect(wrapIndented("short", 30)).toEqual(["short"]);
  });
});
