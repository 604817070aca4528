import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CliDeps } from "../../src/cli/cli-deps.js";
import { reportError } from "../../src/cli/error-report.js";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { FatalError, UsageError } from "../../src/cli/fatal-error.js";
import { runCli } from "../../src/cli/main.js";
import { ScenarioValidationError } from "../../src/scenario/scenario-validation-error.js";
import { StoreOpenError } from "../../src/ui/data/store-open-error.js";
import { UnknownRunError } from "../../src/ui/data/unknown-run-error.js";
import { useTempDir } from "../support/temp-dir.js";
import { seedRuns } from "./seed-runs.js";

function buffered(env: Record<string, string> = {}) {
  let stderr = "";
  const deps: CliDeps = {
    stdout: { write: () => true },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env,
    cwd: process.cwd(),
    signal: new AbortController().signal,
  };
  return { deps, stderr: () => stderr };
}

describe("reportError", () => {
  describe("our own errors", () => {
    it.each([
      ["a FatalError, with its exit code", new FatalError("gone", { exitCode: 130 }), 130],
      ["a UsageError", new UsageError("use either --scenario or --task"), ExitCode.usage],
      [
        "any other SharedCtxError",
        new StoreOpenError({ location: "/tmp/x.db", reason: "locked" }),
        ExitCode.failure,
      ],
    ])("%s: one line with its message, no stack", (_name, error, exitCode) => {
      const { deps, stderr } = buffered();
      expect(reportError(error, deps)).toBe(exitCode);
      expect(stderr()).toBe(`shared-ctx: ${error.message}\n`);
    });

    it.each([
      ["ScenarioValidationError", new ScenarioValidationError("s.yaml", [])],
      ["UnknownRunError", new UnknownRunError({ runId: "sw-0", recentRunIds: [] })],
    ])("%s is the user's input: exit 2", (_name, error) => {
      const { deps, stderr } = buffered();
      expect(reportError(error, deps)).toBe(ExitCode.usage);
      expect(stderr()).toBe(`shared-ctx: ${error.message}\n`);
    });
  });

  describe("an unexpected error", () => {
    it("says it is unexpected, names the message, and how to see the stack; exits 1", () => {
      const { deps, stderr } = buffered();
      expect(reportError(new TypeError("cannot read x of undefined"), deps)).toBe(ExitCode.failure);
      expect(stderr()).toBe(
        "shared-ctx: unexpected error: cannot read x of undefined\n(set SHARED_CTX_DEBUG=1 for the stack trace)\n",
      );
    });

    it("prints the stack with SHARED_CTX_DEBUG=1", () => {
      const { deps, stderr } = buffered({ SHARED_CTX_DEBUG: "1" });
      const error = new RangeError("out of range");
      expect(reportError(error, deps)).toBe(ExitCode.failure);
      expect(stderr()).toBe(`shared-ctx: unexpected error: out of range\n${error.stack}\n`);
      expect(stderr()).not.toContain("SHARED_CTX_DEBUG=1 for");
    });

    it("a thrown value that is not an Error is printed as text, without a stack hint", () => {
      const { deps, stderr } = buffered();
      expect(reportError("a string", deps)).toBe(ExitCode.failure);
      expect(stderr()).toBe("shared-ctx: unexpected error: a string\n");
    });
  });

  describe("through runCli", () => {
    const tempDir = useTempDir("shared-ctx-error-report-");

    it("a command that fails in an unexpected way exits 1 with one line and the hint", async () => {
      const db = join(tempDir(), "store.db");
      await seedRuns(db);
      let stderr = "";
      const deps: CliDeps = {
        // An output stream that fails in a way nothing maps: the plainest unexpected error.
        stdout: {
          write: () => {
            throw new TypeError("the stream broke");
          },
        },
        stderr: { write: (chunk: string) => (stderr += chunk) },
        env: { NO_COLOR: "1" },
        cwd: process.cwd(),
        signal: new AbortController().signal,
      };
      expect(await runCli(["runs", "--db", db], deps)).toBe(ExitCode.failure);
      expect(stderr).toBe(
        "shared-ctx: unexpected error: the stream broke\n(set SHARED_CTX_DEBUG=1 for the stack trace)\n",
      );
    });
  });
});
