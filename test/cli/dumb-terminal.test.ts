import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { CliDeps } from "../../src/cli/cli-deps.js";
import { runCli } from "../../src/cli/main.js";
import { fakeTerminal } from "../support/fake-terminal.js";
import { useTempDir } from "../support/temp-dir.js";

// Ink draws every frame only when it believes it is not in CI: say so, so that a regression (the
// animated view drawn on a dumb terminal) shows its cursor moves here as it would for a person.
vi.hoisted(() => {
  process.env.CI = "false";
});

/** Cursor up/down/left/right, to a column or a position, erase in line or screen. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escapes are what is looked for.
const cursorMovement = /\u001B\[[\d;]*[ABCDGHJKf]/;

function inDumbTerminal(argv: readonly string[], cwd: string) {
  const terminal = fakeTerminal({ columns: 80, rows: 24 });
  let stderr = "";
  const deps: CliDeps = {
    stdout: terminal.stdout,
    stderr: { write: (chunk: string) => (stderr += chunk) },
    stdin: terminal.stdin,
    env: { TERM: "dumb", NO_COLOR: "1" },
    cwd,
    signal: new AbortController().signal,
  };
  return { terminal, exitCode: runCli(argv, deps), stderr: () => stderr };
}

describe("TERM=dumb: plain output, no cursor movement, in a terminal", () => {
  const tempDir = useTempDir("shared-ctx-dumb-");

  it.each([
    [["demo", "--seed", "7", "--speed", "1000"], "== Comparison =="],
    [["run", "--mode", "statewave", "--seed", "1", "--speed", "1000"], "Summary — "],
  ])("shared-ctx %j", async (argv, expected) => {
    const cwd = tempDir();
    const { terminal, exitCode, stderr } = inDumbTerminal(
      [...argv, "--db", join(cwd, "store.db")],
      cwd,
    );
    expect(await exitCode).toBe(0);
    expect(stderr()).toBe("");
    const output = terminal.screens().join("");
    expect(output).toContain(expected);
    expect(terminal.raw()).not.toMatch(cursorMovement);
  });
});
