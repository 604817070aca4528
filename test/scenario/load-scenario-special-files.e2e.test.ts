import { execFileSync } from "node:child_process";
import { symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  loadScenario,
  maxScenarioFileBytes,
  ScenarioValidationError,
} from "../../src/scenario/load-scenario.js";
import { rejectionOf } from "../support/rejection.js";
import { useTempDir } from "../support/temp-dir.js";

// biome-ignore lint/correctness/useHookAtTopLevel: useTempDir is a vitest helper, not a React hook.
const tempDir = useTempDir("shared-ctx-scenario-special-");

/** The ScenarioValidationError `work` rejects with. */
const refusal = (work: Promise<unknown>) => rejectionOf(work, ScenarioValidationError);

describe("loadScenario on files that are not regular", () => {
  it("refuses a named pipe at once instead of waiting for a writer", async () => {
    const path = join(tempDir(), "pipe.yaml");
    execFileSync("mkfifo", [path]);
    const error = await refusal(loadScenario(path));
    expect(error.path).toBe(path);
    expect(error.message).toContain(path);
    expect(error.issues[0]?.expected).toContain("found a named pipe");
  });

  it("refuses /dev/zero without reading it", async () => {
    const error = await refusal(loadScenario("/dev/zero"));
    expect(error.path).toBe("/dev/zero");
    expect(error.issues[0]?.expected).toContain("found a character device");
  });

  it("names a symbolic link loop as one", async () => {
    const directory = tempDir();
    const a = join(directory, "a.yaml");
    const b = join(directory, "b.yaml");
    symlinkSync(b, a);
    symlinkSync(a, b);
    const error = await refusal(loadScenario(a));
    expect(error.path).toBe(a);
    expect(error.issues[0]?.expected).toContain("symbolic link loop");
    expect(error.cause).toMatchObject({ code: "ELOOP" });
  });

  it("refuses a folder", async () => {
    const directory = join(tempDir(), "folder.yaml");
    execFileSync("mkdir", [directory]);
    const error = await refusal(loadScenario(directory));
    expect(error.issues[0]?.expected).toContain("found a folder");
  });

  it("refuses a file over the size cap before reading it", async () => {
    const path = join(tempDir(), "huge.yaml");
    writeFileSync(path, "");
    // Sparse: the size is there, the bytes are not, so the test writes nothing.
    truncateSync(path, maxScenarioFileBytes + 1);
    const error = await refusal(loadScenario(path));
    expect(error.issues[0]?.expected).toBe(
      `a scenario file of at most ${maxScenarioFileBytes} bytes, found ${maxScenarioFileBytes + 1} bytes`,
    );
  });

  it("still reads a regular file through a symbolic link", async () => {
    const directory = tempDir();
    const target = join(directory, "target.json");
    writeFileSync(target, "{}");
    const link = join(directory, "link.json");
    symlinkSync(target, link);
    const error = await refusal(loadScenario(link));
    // Read and parsed: the refusal is about the content, not the file.
    expect(error.issues.some((issue) => issue.field === "name")).toBe(true);
  });
});
