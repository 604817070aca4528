import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { InterruptedError } from "../../src/cli/interrupted-error.js";
import { runCli } from "../../src/cli/main.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { listRuns } from "../../src/ui/data/read-run.js";
import { runOutcome } from "../../src/ui/format/runs-table.js";
import { startFakeOpenAiServer } from "../llm/support/fake-openai-server.js";
import { requireBuiltCli } from "../support/built-bin.js";
import { capturedCliDeps } from "../support/cli-deps.js";
import { waitForExit } from "../support/run-child.js";
import { useTempDir } from "../support/temp-dir.js";
import { waitFor } from "../support/wait-for.js";

// biome-ignore lint/correctness/useHookAtTopLevel: useTempDir is a vitest helper, not a React hook.
const tempDir = useTempDir("shared-ctx-manners-");
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(repoRoot, "bin", "shared-ctx.js");

/** The runs an embedded store file holds, as `shared-ctx runs` lists them. */
async function runsIn(path: string) {
  const store = new EmbeddedStore({ path });
  try {
    return await listRuns(store);
  } finally {
    await store.close();
  }
}

function fakeDeps(options: { env?: Record<string, string>; signal?: AbortSignal } = {}) {
  return capturedCliDeps({ ...options, cwd: tempDir(), isTTY: false });
}

describe("a run that does not finish (in process)", () => {
  it("stopped by SIGINT: exit 130, one line, the run recorded `interrupted`", async () => {
    const controller = new AbortController();
    const { deps, cwd, stdout, stderr } = fakeDeps({ signal: controller.signal });
    // Slow enough that the run is still going when the first lines are out.
    const running = runCli(["run", "--mode", "naive", "--speed", "5", "--db", "store.db"], deps);
    await waitFor(() => expect(stdout()).toContain("Task:"));
    controller.abort(new InterruptedError("SIGINT"));
    expect(await running).toBe(130);
    expect(stderr()).toBe("shared-ctx: interrupted by SIGINT\n");
    const [run] = await runsIn(join(cwd, "store.db"));
    expect(run?.stop).toEqual({ state: "interrupted", reason: "interrupted by SIGINT" });
    expect(run && runOutcome(run)).toBe("interrupted");
  });

  it("stopped by SIGTERM: exit 143", async () => {
    const controller = new AbortController();
    const { deps, stdout } = fakeDeps({ signal: controller.signal });
    const running = runCli(["run", "--mode", "naive", "--speed", "5", "--db", "store.db"], deps);
    await waitFor(() => expect(stdout()).toContain("Task:"));
    controller.abort(new InterruptedError("SIGTERM"));
    expect(await running).toBe(143);
  });

  it("failed: the run is recorded `failed` with its reason, and `runs` says so", async () => {
    // The model server answers the start-up check, then fails every call.
    const server = await startFakeOpenAiServer((_request, index) =>
      index === 0 ? { kind: "status", status: 404 } : { kind: "status", status: 400 },
    );
    closers.push(() => server.close());
    const { deps, cwd, stderr } = fakeDeps({
      env: {
        LLM_MODEL: "openai/test-model",
        LLM_API_KEY: "sk-test",
        LLM_BASE_URL: server.url,
        LLM_MAX_RETRIES: "0",
      },
    });
    const code = await runCli(
      ["run", "--mode", "naive", "--speed", "2000", "--seed", "1", "--db", "store.db"],
      deps,
    );
    expect(code).toBe(1);
    const [run] = await runsIn(join(cwd, "store.db"));
    expect(run?.stop?.state).toBe("failed");
    expect(run?.stop?.reason).not.toBe("");
    // The reason recorded is the one the user was shown.
    expect(stderr()).toContain(run?.stop?.reason ?? "?");
    expect(run && runOutcome(run)).toBe(`failed: ${run?.stop?.reason}`);
  });

  it("an unreachable model server is named, with its URL, before any agent starts", async () => {
    const server = await startFakeOpenAiServer(() => ({ kind: "status", status: 500 }));
    await server.close();
    const { deps, cwd, stdout, stderr } = fakeDeps({
      env: { LLM_MODEL: "openai/test-model", LLM_API_KEY: "sk-test", LLM_BASE_URL: server.url },
    });
    const code = await runCli(["run", "--mode", "naive", "--db", "store.db"], deps);
    expect(code).toBe(1);
    expect(stderr().trim().split("\n")).toEqual([
      expect.stringContaining(`shared-ctx: cannot reach the model server at ${server.url} (`),
    ]);
    // Nothing ran: no agent, no run in the store.
    expect(stdout()).toBe("");
    expect(existsSync(join(cwd, "store.db"))).toBe(false);
  });
});

describe("the built bin under pipes and signals", () => {
  beforeAll(requireBuiltCli);

  /** `<command> | head -1` in bash with pipefail, so the exit status is shared-ctx's own. */
  function pipeToHead(args: readonly string[], db: string) {
    const command = [process.execPath, bin, ...args].map((part) => `'${part}'`).join(" ");
    return waitForExit(
      spawn("bash", ["-c", `set -o pipefail; ${command} | head -1`], {
        cwd: repoRoot,
        env: { ...process.env, NO_COLOR: "1", SHARED_CTX_DB: db, LLM_MODEL: "" },
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
  }

  it("`run | head -1` exits 0 quietly, and the run is recorded", async () => {
    const db = join(tempDir(), "store.db");
    // Slow enough that head has gone long before the run would end: the next line meets EPIPE.
    const result = await pipeToHead(["run", "--mode", "naive", "--speed", "2", "--seed", "1"], db);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n").filter(Boolean)).toHaveLength(1);
    const runs = await runsIn(db);
    expect(runs).toHaveLength(1);
    expect(runs[0]?.stop).toEqual({
      state: "interrupted",
      reason: "standard output was closed by its reader",
    });
  }, 20_000);

  it("`demo | head -1` exits 0 quietly, and both runs are recorded", async () => {
    const db = join(tempDir(), "store.db");
    const result = await pipeToHead(["demo", "--speed", "2", "--seed", "1"], db);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const runs = await runsIn(db);
    expect(runs.map((run) => run.stop?.state).sort()).toEqual(["interrupted", "interrupted"]);
  }, 20_000);

  it("SIGINT exits 130 and records the run `interrupted`; SIGTERM 143; SIGHUP 129", async () => {
    for (const [signal, exitCode] of [
      ["SIGINT", 130],
      ["SIGTERM", 143],
      ["SIGHUP", 129],
    ] as const) {
      const db = join(tempDir(), "store.db");
      const child = spawn(process.execPath, [bin, "run", "--mode", "naive", "--speed", "2"], {
        cwd: repoRoot,
        env: { ...process.env, NO_COLOR: "1", SHARED_CTX_DB: db, LLM_MODEL: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const exited = waitForExit(child);
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
      child.kill(signal);
      const result = await exited;
      expect(result.code).toBe(exitCode);
      expect(result.stderr).toBe(`shared-ctx: interrupted by ${signal}\n`);
      const [run] = await runsIn(db);
      expect(run?.stop).toEqual({ state: "interrupted", reason: `interrupted by ${signal}` });
    }
  }, 40_000);
});
