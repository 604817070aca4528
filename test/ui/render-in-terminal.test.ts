import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { CliDeps } from "../../src/cli/cli-deps.js";
import { runCli } from "../../src/cli/main.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { type RunningServer, startServer } from "../../src/server/listen.js";
import { fakeTerminal } from "../support/fake-terminal.js";
import { writeDecision } from "../support/fixtures/decision-episode.js";
import { useTempDir } from "../support/temp-dir.js";
import { waitFor } from "../support/wait-for.js";

// These tests look at frames drawn before the end. Ink draws only the last frame when it believes
// it runs in CI (is-in-ci reads CI when Ink is first imported), so say "not CI" first.
vi.hoisted(() => {
  process.env.CI = "false";
});

/**
 * The whole CLI in a terminal: `run`, `demo` and `watch` take their interactive paths
 * (`renderRunLive`, `renderDemo`, `renderWatch`) with real runs and a real store.
 */
function inTerminal(argv: readonly string[], options: { cwd: string; columns?: number }) {
  const terminal = fakeTerminal({ columns: options.columns ?? 120, rows: 40 });
  let stderr = "";
  const deps: CliDeps = {
    stdout: terminal.stdout,
    stderr: { write: (chunk: string) => (stderr += chunk) },
    stdin: terminal.stdin,
    env: { NO_COLOR: "1" },
    cwd: options.cwd,
    signal: new AbortController().signal,
  };
  const exitCode = runCli(argv, deps);
  return { ...terminal, exitCode, stderr: () => stderr };
}

/** The index of the first screen that passes `test`, or -1. */
function firstScreen(screens: readonly string[], test: (screen: string) => boolean): number {
  return screens.findIndex(test);
}

describe("the interactive views of the real CLI, with real runs", () => {
  const tempDir = useTempDir("shared-ctx-terminal-");

  beforeAll(async () => {
    // The commands start the runs first and load the UI meanwhile (start-up time); on a busy
    // machine that load can outlast a fast run. Loaded here once, the first frame comes at once.
    await Promise.all([
      import("../../src/ui/render-run.js"),
      import("../../src/ui/render-demo.js"),
      import("../../src/ui/render-watch.js"),
    ]);
  });

  it("run: one live pane (agents, events) before the verdict, then the summary", async () => {
    const cwd = tempDir();
    const db = join(cwd, "store.db");
    const run = inTerminal(["run", "--mode", "naive", "--seed", "1", "--speed", "20", "--db", db], {
      cwd,
    });
    expect(await run.exitCode).toBe(0);
    expect(run.stderr()).toBe("");
    const screens = run.screens();
    // A frame mid-run: the pane with the agents at work, no verdict yet.
    const midRun = firstScreen(
      screens,
      (screen) => screen.includes("[Coder] Building → jwt-issuer") && !screen.includes("COLLISION"),
    );
    const verdict = firstScreen(screens, (screen) => screen.includes("COLLISION DETECTED"));
    expect(midRun).toBeGreaterThanOrEqual(0);
    expect(screens[midRun]).toMatch(/Messages only\s+nv-[0-9a-f]{8}/);
    expect(verdict).toBeGreaterThan(midRun);
    expect(screens[verdict]).toContain(
      "[Reviewer] COLLISION → legacy-session-token: Coder built legacy-session-token, which Planner deprecated",
    );
    // After the pane: the same summary as without a terminal.
    const all = screens.join("\n");
    expect(all.lastIndexOf("Summary — naive")).toBeGreaterThan(all.indexOf("COLLISION DETECTED"));
    expect(all).toMatch(/Timeline:\s+shared-ctx timeline nv-[0-9a-f]{8} --db /);
  });

  it("demo: the first frame (header, empty panes) is drawn before the store is opened", async () => {
    const cwd = tempDir();
    // A store that cannot be opened: the frame comes first, then the error ends the demo.
    const db = join(cwd, "not-a-folder", "deeper", "store.db");
    writeFileSync(join(cwd, "not-a-folder"), "a file, not a folder\n");
    const demo = inTerminal(["demo", "--seed", "1", "--db", db], { cwd, columns: 80 });
    expect(await demo.exitCode).not.toBe(0);
    expect(demo.stderr()).toContain(db);
    const first = demo.screens()[0] ?? "";
    expect(first).toContain("shared-ctx demo · scenario coordinator-restart");
    expect(first).toContain("Group chat");
    expect(first).toContain("Shared context");
    expect(first).toContain("q quit");
  });

  it("demo: both panes live, both verdicts and the comparison, the stored timeline on `t`, the ending on `q`", async () => {
    const cwd = tempDir();
    const db = join(cwd, "store.db");
    // The broadcast baseline: a collision on one side, an avoided one on the other (the default,
    // group-chat, ties on late-decision).
    const demo = inTerminal(
      ["demo", "--baseline", "broadcast", "--seed", "7", "--speed", "20", "--db", db],
      { cwd },
    );
    await waitFor(() => expect(demo.lastScreen()).toContain("Shared context saved"), {
      timeoutMs: 30_000,
    });
    const screens = demo.screens();
    // Mid-run: both panes drawn side by side, the baseline's agents at work, no verdict yet.
    const midRun = firstScreen(
      screens,
      (screen) =>
        screen.includes("Messages to everyone") &&
        screen.includes("Shared context") &&
        screen.includes("[Coder] Building → legacy-cache") &&
        !screen.includes("COLLISION DETECTED"),
    );
    expect(midRun).toBeGreaterThanOrEqual(0);
    const ended = demo.lastScreen();
    expect(ended).toContain("COLLISION DETECTED");
    expect(ended).toContain("CONFLICT AVOIDED");
    expect(ended).toContain("mid-build invalidation");
    const sharedRun = /Shared context\s+(sw-[0-9a-f]{8})/.exec(ended)?.[1];
    expect(sharedRun).toBeDefined();

    // `t`: the shared-context run's timeline, as the store holds it.
    await demo.press("t");
    await waitFor(() =>
      expect(demo.lastScreen()).toContain(`Timeline of the shared-context run ${sharedRun}`),
    );
    await waitFor(() => expect(demo.lastScreen()).toMatch(/Run\s+run-start\s+/));
    expect(demo.lastScreen()).toMatch(
      /Coder\s+module-cancel\s+CANCELLED → legacy-cache \(deprecated by Planner/,
    );
    await demo.press("t");
    await waitFor(() => expect(demo.lastScreen()).toContain("Shared context saved"));

    await demo.press("q");
    expect(await demo.exitCode).toBe(0);
    expect(demo.stderr()).toBe("");
    // The ending, printed after the live UI is gone: both verdicts, the table, the next step.
    const ending = demo.lastScreen();
    expect(ending).toContain("COLLISION DETECTED");
    expect(ending).toContain("CONFLICT AVOIDED");
    expect(ending).toContain("== Comparison ==");
    expect(ending).toContain(
      `Timeline of the shared-context run:\n  shared-ctx timeline ${sharedRun} --db ${db}`,
    );
  });

  describe("watch, against `serve` over loopback", () => {
    let served: EmbeddedStore;
    let server: RunningServer;
    let serverDir = "";
    beforeAll(async () => {
      serverDir = mkdtempSync(join(tmpdir(), "shared-ctx-watch-served-"));
      served = new EmbeddedStore({ path: join(serverDir, "served.db") });
      server = await startServer({ store: served, port: 0 });
    });
    afterAll(async () => {
      await server?.close();
      rmSync(serverDir, { recursive: true, force: true });
    });

    const decide = (source: string, target: string, content: string) =>
      writeDecision(served, "my-repo", { source, target, content });

    it("follows the subject: a decision written on the server appears, `q` quits", async () => {
      await decide("claude-code", "auth", "Use JWT for the API auth");
      const watch = inTerminal(["watch", "my-repo", "--store", "statewave", "--url", server.url], {
        cwd: tempDir(),
      });
      await waitFor(() => expect(watch.lastScreen()).toContain("Use JWT for the API auth"));
      expect(watch.lastScreen()).toMatch(/Decisions \(1\)/);

      await decide("codex", "cache", "Cache for 5 minutes");
      await waitFor(() => expect(watch.lastScreen()).toContain("Cache for 5 minutes"));
      expect(watch.lastScreen()).toMatch(/Decisions \(2\)/);
      // And one written once the view is long up: the feed itself, not its start.
      await decide("codex", "auth", "Use opaque session tokens for the API auth");
      await waitFor(() => expect(watch.lastScreen()).toMatch(/Open disputes \(1\)/));

      await watch.press("q");
      expect(await watch.exitCode).toBe(0);
      expect(watch.stderr()).toBe("");
    });
  });
});
