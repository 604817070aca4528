import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { createVirtualClock } from "../../src/scenario/clock.js";
import { loadScenario } from "../../src/scenario/load-scenario.js";
import type { RunMode } from "../../src/scenario/scenario-events.js";
import { startRun } from "../../src/scenario/scenario-runner.js";
import { RunLiveApp } from "../../src/ui/run-live-app.js";
import { renderInk } from "../support/render-ink.js";
import { useTempDir } from "../support/temp-dir.js";
import { waitFor } from "../support/wait-for.js";

/**
 * Real time the test moves by hand: the run's clock is paced at speed 1 against it, so scenario
 * time never passes what the test has released, and every frame in between can be looked at.
 */
function handCrankedTime() {
  let now = 0;
  const waiting = new Set<() => void>();
  return {
    pacing: {
      speed: 1,
      now: () => now,
      wait: () => new Promise<void>((resolve) => waiting.add(resolve)),
    },
    /** Lets scenario time run up to `ms`. */
    releaseTo(ms: number) {
      now = Math.max(now, ms);
      for (const resolve of [...waiting]) {
        waiting.delete(resolve);
        resolve();
      }
    },
  };
}

describe("RunLiveApp with a real run (`shared-ctx run` in a terminal)", () => {
  const tempDir = useTempDir("shared-ctx-run-live-");

  async function liveRun(mode: RunMode) {
    const store = new EmbeddedStore({ path: join(tempDir(), "store.db") });
    const time = handCrankedTime();
    const handle = startRun({
      scenario: await loadScenario("auth-jwt"),
      mode,
      store,
      seed: 1,
      clock: createVirtualClock({ pacing: time.pacing }),
    });
    const app = renderInk(<RunLiveApp source={handle} mode={mode} />);
    const finish = async () => {
      time.releaseTo(Number.POSITIVE_INFINITY);
      const summary = await handle.done;
      await store.close();
      return summary;
    };
    return { app, handle, time, finish };
  }

  it("statewave: the agents and their events as scenario time passes, then the avoided verdict", async () => {
    const { app, handle, time, finish } = await liveRun("statewave");
    try {
      await waitFor(() => {
        expect(app.lastFrame()).toContain(handle.runId);
        expect(app.lastFrame()).toContain("[Planner] Starting");
        expect(app.lastFrame()).toContain("[Coder] Starting");
        expect(app.lastFrame()).toContain("[Reviewer] Starting");
      });
      // Nothing past T+0 until the test lets time run.
      expect(app.lastFrame()).not.toContain("DEPRECATING");

      time.releaseTo(3_000);
      await waitFor(() =>
        expect(app.lastFrame()).toContain("[Planner] DEPRECATING → legacy-session-token"),
      );
      expect(app.lastFrame()).not.toContain("CONFLICT AVOIDED");

      const summary = await finish();
      expect(summary.collision).toBe(false);
      await waitFor(() => expect(app.lastFrame()).toContain("CONFLICT AVOIDED"));
      const frame = app.lastFrame();
      // The skip was on screen as it happened; at the end the verdict (never cut) takes the rows
      // the log's oldest lines had.
      expect(app.frames().join("\n")).toContain(
        "[Coder] Skipping → legacy-session-token (deprecated by Planner) · read-before-act",
      );
      expect(frame).toContain("Avoided: 1 by read-before-act");
      expect(frame).not.toContain("COLLISION DETECTED");
    } finally {
      await finish();
    }
  });

  it("naive: the Coder builds the deprecated module and the review finds the collision", async () => {
    const { app, time, finish } = await liveRun("naive");
    try {
      time.releaseTo(14_000);
      await waitFor(() =>
        expect(app.lastFrame()).toContain("[Coder] Building → legacy-session-token"),
      );
      expect(app.lastFrame()).not.toContain("COLLISION");

      const summary = await finish();
      expect(summary.collision).toBe(true);
      await waitFor(() => expect(app.lastFrame()).toContain("COLLISION DETECTED"));
      expect(app.lastFrame()).toContain("legacy-session-token");
    } finally {
      await finish();
    }
  });
});
