import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { toRunEventEpisode } from "../../src/scenario/run-record.js";
import { type RunningServer, startServer } from "../../src/server/listen.js";
import { requireBuiltCli } from "../support/built-bin.js";
import { statewaveAvoidedEvents } from "../support/fixtures/run-events.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(repoRoot, "bin", "shared-ctx.js");

/** The built bin with `argv`, its store a `serve` over loopback: exit code, stdout, stderr. */
function shared(
  argv: readonly string[],
  url: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...argv],
      { cwd: repoRoot, env: { ...process.env, STATEWAVE_URL: url, NO_COLOR: "1" } },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * No warning from our own code on any command's stderr: the main commands, through
 * STATEWAVE_URL, against a store holding more runs than Node's listener limit (a command that
 * read every run with a listener per request on its one signal printed
 * MaxListenersExceededWarning).
 */
describe("the main commands through STATEWAVE_URL print nothing on stderr", () => {
  let folder = "";
  let server: RunningServer;

  beforeAll(async () => {
    requireBuiltCli();
    folder = mkdtempSync(join(tmpdir(), "shared-ctx-clean-stderr-"));
    const store = new EmbeddedStore({ path: join(folder, "served.db") });
    for (let index = 0; index < 14; index += 1) {
      const runId = `sw-${index.toString(16).padStart(8, "0")}`;
      for (const event of statewaveAvoidedEvents(runId)) {
        await store.createEpisode(toRunEventEpisode(event));
      }
    }
    server = await startServer({ store, port: 0 });
  });

  afterAll(async () => {
    await server?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it.each([
    [["runs"]],
    [["runs", "last"]],
    [["timeline", "last"]],
    [["watch", "last", "--once"]],
    [["run", "--mode", "statewave", "--speed", "1000", "--seed", "1"]],
    [["demo", "--speed", "1000", "--seed", "1"]],
    [["promote", "last", "--into", "project", "--dry-run"]],
  ])("shared-ctx %j", async (argv) => {
    const result = await shared(argv, server.url);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).not.toBe("");
  });
});
