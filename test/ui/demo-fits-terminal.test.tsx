import { EventEmitter } from "node:events";
import { describe, expect, it, vi } from "vitest";
import type { RunSummary, ScenarioEvent } from "../../src/scenario/scenario-events.js";
import { stripAnsi, textWidth } from "../../src/ui/format/text-width.js";
import { verdictFor } from "../../src/ui/format/verdict.js";
import { renderDemo } from "../../src/ui/render-demo.js";
import type { DemoRuns } from "../../src/ui/run-source.js";
import { eraseScrollback, scrollbackSafe } from "../../src/ui/scrollback-safe-stdout.js";
import { type DemoState, demoReducer, initialDemoState } from "../../src/ui/state/demo-reducer.js";
import { renderDemoScreen } from "../support/demo-screen.js";
import {
  escalationEvents,
  naiveCollisionEvents,
  statewaveAvoidedEvents,
} from "../support/fixtures/run-events.js";
import { scriptedRun } from "../support/fixtures/scripted-run.js";
import { waitFor } from "../support/wait-for.js";

// This file drives a real interactive terminal. Ink draws only the last frame when it believes it
// runs in CI (is-in-ci reads CI at import), so say "not CI" before Ink is imported: CI sets CI=true.
vi.hoisted(() => {
  process.env.CI = "false";
});

const focus = {
  kind: "decision",
  module: "legacy-session-token",
  decider: "the Planner",
  value: "deprecate",
} as const;

function demo(
  baseline: readonly ScenarioEvent[],
  shared: readonly ScenarioEvent[],
  extra: (state: DemoState) => DemoState = (state) => state,
): DemoState {
  let state = demoReducer(initialDemoState("auth-jwt"), { type: "focus-set", focus });
  for (const event of baseline)
    state = demoReducer(state, { type: "run-event", side: "baseline", event });
  for (const event of shared)
    state = demoReducer(state, { type: "run-event", side: "shared", event });
  return extra(state);
}

const states: Record<string, () => DemoState> = {
  "just started": () =>
    demo(naiveCollisionEvents().slice(0, 2), statewaveAvoidedEvents().slice(0, 2)),
  "mid-run": () => demo(naiveCollisionEvents().slice(0, 9), statewaveAvoidedEvents().slice(0, 9)),
  "both ended": () => demo(naiveCollisionEvents(), statewaveAvoidedEvents()),
  "escalations and a failure": () =>
    demo(naiveCollisionEvents(), escalationEvents(), (state) =>
      demoReducer(state, {
        type: "run-fail",
        side: "baseline",
        message: "the store at /tmp/a-very-long-path/store.db is locked by another process",
      }),
    ),
};

function frameAt(state: DemoState, columns: number, rows: number): string[] {
  return renderDemoScreen(state, { columns, rows, timelineHeight: rows - 4 }).split("\n");
}

describe("the demo fits the terminal", () => {
  const sizes = [
    [80, 24],
    [100, 30],
    [120, 40],
    [80, 40],
    [60, 16],
    [200, 50],
  ] as const;
  for (const [name, make] of Object.entries(states)) {
    it.each(sizes)(`${name}: never taller or wider than %i×%i`, (columns, rows) => {
      const lines = frameAt(make(), columns, rows);
      // One row to spare: a frame as tall as the screen makes Ink clear the terminal.
      expect(lines.length).toBeLessThanOrEqual(rows - 1);
      for (const line of lines) expect(textWidth(line)).toBeLessThanOrEqual(columns);
    });
  }

  it("at 80×24 keeps the header, both verdicts and a one-line comparison", () => {
    const lines = frameAt(states["both ended"]!(), 80, 24);
    expect(lines.length).toBeLessThanOrEqual(23);
    expect(lines[0]).toContain("shared-ctx demo");
    const frame = lines.join("\n");
    expect(frame).toContain("COLLISION DETECTED");
    expect(frame).toContain("CONFLICT AVOIDED");
    expect(frame).not.toContain("╔");
    expect(frame).toContain(
      "Shared context saved 2,400 tokens and 12.0s of wasted work. · Messages only",
    );
    expect(frame).not.toMatch(/^Comparison$/m);
  });

  // Stacked panes (below 100 columns), so each pane's words read in order across the frame.
  it.each([
    [80, 24],
    [90, 28],
  ])(
    "at %i×%i every verdict's title and why are there in full, wrapped, never cut",
    (columns, rows) => {
      const state = states["both ended"]!();
      const lines = frameAt(state, columns, rows);
      expect(lines.length).toBeLessThanOrEqual(rows - 1);
      // The panes' borders and the wrapping aside, the words are all there.
      const words = lines
        .join(" ")
        .replace(/[│╭╮╰╯─]/g, " ")
        .replace(/\s+/g, " ");
      for (const pane of [state.panes.baseline, state.panes.shared]) {
        const verdict = verdictFor(pane.summary!, pane.events);
        expect(words).toContain(verdict.title.replace(/\s+/g, " "));
        for (const detail of verdict.details) expect(words).toContain(detail.replace(/\s+/g, " "));
      }
      // The table is one key away, and said so.
      expect(words).toContain("c comparison");
    },
  );

  it("from 35 rows draws the boxed verdicts and the comparison table", () => {
    const frame = frameAt(states["both ended"]!(), 120, 40).join("\n");
    expect(frame).toContain("╔");
    expect(frame).toMatch(/^Comparison$/m);
  });
});

/** A terminal stream the way Ink sees one, recording every write. */
function fakeTerminal(columns: number, rows: number) {
  const stream = Object.assign(new EventEmitter(), {
    isTTY: true,
    columns,
    rows,
    writes: [] as string[],
    write(chunk: string) {
      stream.writes.push(chunk);
      return true;
    },
  });
  return stream;
}

describe("scrollbackSafe", () => {
  it("removes ESC[3J from what is written and keeps everything else", () => {
    const terminal = fakeTerminal(80, 24);
    const safe = scrollbackSafe(terminal as unknown as NodeJS.WriteStream);
    safe.write(`a\u001B[2J${eraseScrollback}\u001B[Hb`);
    expect(terminal.writes).toEqual(["a\u001B[2J\u001B[Hb"]);
    expect(safe.columns).toBe(80);
    expect(safe.isTTY).toBe(true);
  });
});

describe("renderDemo in an 80×24 terminal", () => {
  function start(terminal: ReturnType<typeof fakeTerminal>) {
    const naive = scriptedRun(naiveCollisionEvents());
    const statewave = scriptedRun(statewaveAvoidedEvents());
    const runs: DemoRuns = { naive, statewave, focus, stop: async () => undefined };
    const stdin = Object.assign(new EventEmitter(), {
      isTTY: true,
      setRawMode: () => undefined,
      setEncoding: () => undefined,
      ref: () => undefined,
      unref: () => undefined,
      read: () => null,
      resume: () => undefined,
      pause: () => undefined,
    });
    const controller = new AbortController();
    const ending = renderDemo({
      stdout: terminal as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      noColor: true,
      initialScenario: "auth-jwt",
      loadScenarios: async () => [],
      start: async () => runs,
      loadTimeline: async () => {
        throw new Error("not in this test");
      },
      timelineCommand: (runId) => `shared-ctx timeline ${runId} --db /tmp/x.db`,
      signal: controller.signal,
    });
    return { naive, statewave, ending, quit: () => controller.abort() };
  }

  it("never clears the scrollback; after quitting, both verdicts, every why and the table stay, wrapped", async () => {
    const terminal = fakeTerminal(80, 24);
    const { naive, statewave, ending, quit } = start(terminal);
    await waitFor(() => expect(terminal.writes.join("")).toContain("Messages only"));
    for (let step = 0; step < 40; step++) {
      naive.emit();
      statewave.emit();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await waitFor(() =>
      expect(stripAnsi(terminal.writes.join(""))).toContain("Shared context saved"),
    );
    // The terminal shrinks mid-run; Ink redraws the old frame once before the layout catches up.
    terminal.rows = 14;
    terminal.emit("resize");
    await new Promise((resolve) => setTimeout(resolve, 50));
    quit();
    expect(await ending).toBe("quit");
    const output = terminal.writes.join("");
    expect(output).not.toContain(eraseScrollback);
    // The ending is the last write: plain lines, no cursor movement, none wider than 80.
    const last = terminal.writes.at(-1) ?? "";
    expect(last).not.toMatch(cursorMovement);
    const lines = stripAnsi(last).trimEnd().split("\n");
    for (const line of lines) expect(textWidth(line)).toBeLessThanOrEqual(80);
    const text = lines.join("\n");
    expect(text).toContain("COLLISION DETECTED");
    expect(text).toContain("CONFLICT AVOIDED");
    expect(text).toContain("== Comparison ==");
    expect(text).toContain("Shared context saved 2,400 tokens");
    expect(text).toContain("shared-ctx timeline sw-4e5f6a7b --db /tmp/x.db");
    // Every detail of each verdict (its "why"), in full, not cut with "…".
    const verdicts = [
      verdictFor(summaryOf(naiveCollisionEvents()), naiveCollisionEvents()),
      verdictFor(summaryOf(statewaveAvoidedEvents()), statewaveAvoidedEvents()),
    ];
    const flat = text.replace(/\s+/g, " ");
    for (const verdict of verdicts) {
      for (const detail of verdict.details) expect(flat).toContain(detail.replace(/\s+/g, " "));
    }
    expect(text).not.toContain("…");
  });
});

/** Cursor up/down/left/right, to a column or position, erase line or screen. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape is what is looked for.
const cursorMovement = /\u001B\[[\d;]*[ABCDGHJK]/;

/** The summary of a fixture run (its run-end event). */
function summaryOf(events: readonly ScenarioEvent[]): RunSummary {
  const end = events.find((event) => event.type === "run-end");
  if (end?.type !== "run-end") throw new Error("the fixture has no run-end");
  return end.summary;
}
