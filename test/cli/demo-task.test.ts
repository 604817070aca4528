import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/main.js";
import { capturedCliDeps } from "../support/cli-deps.js";
import { useTempDir } from "../support/temp-dir.js";

// biome-ignore lint/correctness/useHookAtTopLevel: useTempDir is a vitest helper, not a React hook.
const tempDir = useTempDir("shared-ctx-demo-task-");

function fakeDeps() {
  return capturedCliDeps({ cwd: tempDir(), isTTY: false });
}

const fast = ["--speed", "2000", "--seed", "7", "--db", "store.db"];

describe("shared-ctx demo --task (without a terminal)", () => {
  it("runs the task's team side by side and names the mechanism that made the difference", async () => {
    const { deps, stdout } = fakeDeps();
    const task = "Add dark mode and a language picker to the settings page";
    // Plain message passing on the left: the claim is what differs (group-chat has one too).
    expect(await runCli(["demo", "--task", task, "--baseline", "broadcast", ...fast], deps)).toBe(
      0,
    );
    const output = stdout();
    expect(output).toContain("  Coder 1: dark-mode, settings-page");
    expect(output).toContain("  Coder 2: language-picker, settings-page");
    expect(output).toContain("settings-page: in the slices of Coder 1 and Coder 2.");
    expect(output.indexOf("Team on your task")).toBeLessThan(output.indexOf("== Messages"));
    expect(output).toContain("Avoided: 1 by atomic claim");
    expect(output).toContain("== Comparison ==");
    expect(output).not.toContain("Nothing here to coordinate");
  });

  it("calls the same work on both sides a tie, not a win", async () => {
    const { deps, stdout } = fakeDeps();
    expect(
      await runCli(["demo", "--task", "Build an audit log for admin actions", ...fast], deps),
    ).toBe(0);
    const output = stdout();
    expect(output).toContain(
      "Nothing here to coordinate: every mode does the same work (nothing is decided, and no two slices share a module).",
    );
    const tieAt = output.indexOf(
      "Nothing here to coordinate: every mode does the same work: both sides built, skipped and cancelled the same modules. A tie.",
    );
    expect(tieAt).toBeGreaterThan(output.indexOf("== Shared context"));
    expect(tieAt).toBeLessThan(output.indexOf("== Comparison =="));
  });

  it("exits 2 for a task with no work found, and for --task with --scenario", async () => {
    const none = fakeDeps();
    expect(await runCli(["demo", "--task", "Hello there", ...fast], none.deps)).toBe(2);
    expect(none.stderr()).toContain("No work found in the task: there is nothing to build");
    expect(none.stdout()).toBe("");
    const both = fakeDeps();
    expect(
      await runCli(["demo", "--task", "Build x", "--scenario", "auth-jwt", ...fast], both.deps),
    ).toBe(2);
    expect(both.stderr()).toContain("either --scenario or --task");
  });
});
