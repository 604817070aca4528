import { describe, expect, it } from "vitest";
import { DemoApp } from "../../src/ui/app.js";
import { buildRunTimeline } from "../../src/ui/format/run-timeline.js";
import type { DemoRuns } from "../../src/ui/run-source.js";
import { episodesOf } from "../support/fixtures/run-episodes.js";
import { naiveCollisionEvents, statewaveAvoidedEvents } from "../support/fixtures/run-events.js";
import { type ScriptedRun, scriptedRun } from "../support/fixtures/scripted-run.js";
import { keys, renderInk } from "../support/render-ink.js";
import { waitFor } from "../support/wait-for.js";

const scenarios = [
  { name: "auth-jwt", title: "JWT authentication" },
  { name: "late-decision", title: "A decision that lands mid-build" },
  { name: "two-coders", title: "Two coders, one module" },
];

/** A demo whose rounds are scripted runs the test releases by hand. */
function harness() {
  const rounds: Array<{
    scenario: string;
    naive: ScriptedRun;
    statewave: ScriptedRun;
    stopped: boolean;
  }> = [];
  const timelineRequests: string[] = [];
  const start = async (scenario: string): Promise<DemoRuns> => {
    const round = {
      scenario,
      naive: scriptedRun(naiveCollisionEvents()),
      statewave: scriptedRun(statewaveAvoidedEvents()),
      stopped: false,
    };
    rounds.push(round);
    return {
      naive: round.naive,
      statewave: round.statewave,
      stop: async () => {
        round.stopped = true;
      },
    };
  };
  const loadTimeline = async (runId: string) => {
    timelineRequests.push(runId);
    return buildRunTimeline(runId, {
      episodes: episodesOf(statewaveAvoidedEvents()),
      memories: [],
    });
  };
  const app = renderInk(
    <DemoApp
      initialScenario="auth-jwt"
      scenarios={scenarios}
      start={start}
      loadTimeline={loadTimeline}
    />,
  );
  const finishRound = async () => {
    await waitFor(() => expect(rounds.length).toBeGreaterThan(0));
    const round = rounds.at(-1)!;
    round.naive.emitAll();
    round.statewave.emitAll();
    await waitFor(() => expect(app.lastFrame()).toContain("Shared context saved"));
  };
  return { app, rounds, timelineRequests, finishRound };
}

describe("DemoApp", () => {
  it("starts both pipelines at once and shows their lines live", async () => {
    const { app, rounds } = harness();
    await waitFor(() => expect(rounds).toHaveLength(1));
    rounds[0]!.naive.emit(5);
    rounds[0]!.statewave.emit(7);
    await waitFor(() => {
      expect(app.lastFrame()).toContain("[Planner] DEPRECATING → legacy-session-token");
      expect(app.lastFrame()).toContain("[Coder] Skipping → legacy-session-token");
    });
    expect(app.lastFrame()).not.toContain("COLLISION DETECTED");
  });

  it("shows both verdicts and the comparison when both runs end", async () => {
    const { app, finishRound } = harness();
    await finishRound();
    const frame = app.lastFrame();
    expect(frame).toContain("COLLISION DETECTED");
    expect(frame).toContain("CONFLICT AVOIDED");
    // ink-testing-library's terminal has no rows: 24 are assumed, so the comparison is one line.
    expect(frame).toContain(
      "Shared context saved 2,400 tokens and 12.0s of wasted work. · Messages only: collision",
    );
  });

  it("q quits and stops the runs (renderDemo prints the ending)", async () => {
    const { app, rounds, finishRound } = harness();
    await finishRound();
    await app.press("q");
    await waitFor(() => expect(rounds[0]!.stopped).toBe(true));
  });

  it("? lists the keys and closes again", async () => {
    const { app, rounds } = harness();
    await waitFor(() => expect(rounds).toHaveLength(1));
    await app.press("?");
    await waitFor(() => expect(app.lastFrame()).toContain("pick another scenario"));
    expect(app.lastFrame()).toContain("quit, leaving both verdicts and the comparison on screen");
    await app.press("?");
    await waitFor(() => expect(app.lastFrame()).toContain("Messages only"));
  });

  it("the picker starts on the current scenario and takes type-ahead keys in order", async () => {
    const { app, rounds } = harness();
    await waitFor(() => expect(rounds).toHaveLength(1));
    await app.press("s");
    await waitFor(() => expect(app.lastFrame()).toMatch(/❯ auth-jwt \(current\)/));
    await app.press("l");
    await waitFor(() => expect(app.lastFrame()).toMatch(/❯ late-decision/));
    await app.press("a");
    await app.press("t");
    await waitFor(() => expect(app.lastFrame()).toMatch(/❯ late-decision/));
    await app.press(keys.enter);
    await waitFor(() => expect(rounds.at(-1)?.scenario).toBe("late-decision"));
  });

  it("Ctrl-C quits too", async () => {
    const { app, rounds } = harness();
    await waitFor(() => expect(rounds).toHaveLength(1));
    await app.press(keys.ctrlC);
    await waitFor(() => expect(rounds[0]!.stopped).toBe(true));
  });

  it("t opens the timeline of the shared-context run and esc goes back", async () => {
    const { app, timelineRequests, finishRound } = harness();
    await finishRound();
    await app.press("t");
    await waitFor(() => expect(app.lastFrame()).toMatch(/Time\s+Agent\s+Event type\s+Content/));
    expect(timelineRequests).toEqual(["sw-4e5f6a7b"]);
    expect(app.lastFrame()).toContain("Timeline of the shared-context run sw-4e5f6a7b");
    await app.press(keys.escape);
    await waitFor(() => expect(app.lastFrame()).toContain("Shared context saved"));
  });

  it("r runs both pipelines again from empty panes", async () => {
    const { app, rounds, finishRound } = harness();
    await finishRound();
    await app.press("r");
    await waitFor(() => expect(rounds).toHaveLength(2));
    expect(rounds[0]!.stopped).toBe(true);
    await waitFor(() => expect(app.lastFrame()).not.toContain("COLLISION DETECTED"));
    rounds[1]!.naive.emitAll();
    rounds[1]!.statewave.emitAll();
    await waitFor(() => expect(app.lastFrame()).toContain("Shared context saved"));
  });

  it("s picks another scenario and runs it", async () => {
    const { app, rounds, finishRound } = harness();
    await finishRound();
    await app.press("s");
    await waitFor(() => expect(app.lastFrame()).toContain("Pick a scenario"));
    await app.press(keys.down);
    await waitFor(() => expect(app.lastFrame()).toContain("❯ late-decision"));
    await app.press(keys.enter);
    await waitFor(() =>
      expect(rounds.map((round) => round.scenario)).toEqual(["auth-jwt", "late-decision"]),
    );
    await waitFor(() => expect(app.lastFrame()).toContain("scenario late-decision"));
  });

  it("titles the left pane by --baseline from the first frame, before its run has started", async () => {
    const app = renderInk(
      <DemoApp
        initialScenario="late-decision"
        scenarios={scenarios}
        baselineMode="broadcast"
        // Never resolves: the frame is the one drawn before any run-start arrives.
        start={() => new Promise<DemoRuns>(() => undefined)}
        loadTimeline={async () => {
          throw new Error("not in this test");
        }}
      />,
    );
    await waitFor(() => expect(app.lastFrame()).toContain("Messages to everyone"));
    for (const frame of app.frames()) expect(frame).not.toContain("Messages only");
  });
});
