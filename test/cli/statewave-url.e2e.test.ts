import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import type { RunningServer } from "../../src/server/listen.js";
import { startServer } from "../../src/server/listen.js";
import { requireBuiltCli } from "../support/built-bin.js";
import { closedPort } from "../support/closed-port.js";
import { useTempDir } from "../support/temp-dir.js";
import { waitFor } from "../support/wait-for.js";
import { type CliResult, runWholeCli } from "./cli-harness.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(repoRoot, "bin", "shared-ctx.js");

/**
 * The whole CLI (`runCli`, every command registered) with buffered streams, run from `cwd`: a
 * command that ignored `--store`/`--url` would write `cwd/.shared-ctx/store.db` instead.
 */
async function shared(
  argv: readonly string[],
  options: { cwd: string; signal?: AbortSignal; onStdout?: (stdout: string) => void },
): Promise<CliResult> {
  return runWholeCli(argv, { env: { NO_COLOR: "1" }, ...options });
}

/** What a run did, without what differs between two runs of the same seed (ids, real time). */
function outcome(document: Record<string, unknown>) {
  const { runId: _runId, real: _real, events, ...summary } = document;
  return {
    summary,
    events: (events as Record<string, unknown>[]).map(
      ({ runId: _run, memoryIds: _memories, escalationId: _escalation, summary: _s, ...rest }) =>
        rest,
    ),
  };
}

describe("the CLI against `shared-ctx serve` over loopback (--store statewave --url)", () => {
  const tempDir = useTempDir("shared-ctx-statewave-url-");
  let served: EmbeddedStore;
  let server: RunningServer;
  let serverDir = "";

  beforeAll(async () => {
    // One server for the whole file (useTempDir cleans up after each test): removed in afterAll.
    serverDir = mkdtempSync(join(tmpdir(), "shared-ctx-served-"));
    served = new EmbeddedStore({ path: join(serverDir, "served.db") });
    server = await startServer({ store: served, port: 0 });
  });

  afterAll(async () => {
    await server?.close();
    rmSync(serverDir, { recursive: true, force: true });
  });

  /** `--store statewave --url <the server>`. */
  const viaServer = () => ["--store", "statewave", "--url", server.url];

  /** `shared-ctx run --scenario <scenario> --seed <seed> --json` against the server, and its run id. */
  async function runOnServer(scenario: string, seed: string, cwd: string) {
    const ran = await shared(
      ["run", "--scenario", scenario, "--seed", seed, "--json", ...viaServer()],
      { cwd },
    );
    return { ran, runId: String((JSON.parse(ran.stdout) as { runId: string }).runId) };
  }

  /** The run ids the server holds. */
  async function servedRunIds(): Promise<string[]> {
    const { subjects } = await served.listSubjects({ limit: 200 });
    return subjects.map((subject) => subject.subjectId).filter((id) => /^(sw|nv|bc)-/.test(id));
  }

  describe("run", () => {
    it("--json: the outcome equals the embedded store's for the same seed, and the run is on the server", async () => {
      const cwd = tempDir();
      const args = ["run", "--scenario", "late-decision", "--seed", "7", "--json"];
      const embedded = await shared([...args, "--db", join(cwd, "local.db")], { cwd });
      const remote = await shared([...args, ...viaServer()], { cwd });
      expect(remote.stderr).toBe("");
      expect(remote.exitCode).toBe(0);
      const local = JSON.parse(embedded.stdout) as Record<string, unknown>;
      const viaHttp = JSON.parse(remote.stdout) as Record<string, unknown>;
      expect(viaHttp.collision).toBe(false);
      expect(viaHttp.avoidedBy).toEqual({ "mid-build invalidation": 1 });
      expect(outcome(viaHttp)).toEqual(outcome(local));

      // Its events went to the server, and nothing was written next to the user.
      const runId = String(viaHttp.runId);
      expect(await servedRunIds()).toContain(runId);
      const timeline = await served.getTimeline(runId);
      expect(timeline.episodes.length).toBeGreaterThanOrEqual((viaHttp.events as unknown[]).length);
      expect(existsSync(join(cwd, ".shared-ctx"))).toBe(false);
    });

    it("prints the summary, and a timeline hint that keeps the server's flags", async () => {
      const cwd = tempDir();
      const result = await shared(
        ["run", "--mode", "naive", "--seed", "1", "--speed", "1000", ...viaServer()],
        { cwd },
      );
      expect(result.stderr).toBe("");
      expect(result.exitCode).toBe(0);
      const [, runId] =
        /^== Messages only · (nv-[0-9a-f]{8}) · auth-jwt/m.exec(result.stdout) ?? [];
      expect(runId).toBeDefined();
      expect(result.stdout).toContain(`Summary — naive`);
      expect(result.stdout).toMatch(/Collision:\s+yes — found by review after the work was done/);
      const hint = result.stdout
        .split("\n")
        .find((line) => line.trimStart().startsWith("Timeline:"));
      expect(hint?.replace(/\s+/g, " ").trim()).toBe(
        `Timeline: shared-ctx timeline ${runId} --store statewave --url ${server.url}`,
      );
      expect(await servedRunIds()).toContain(runId);
    });
  });

  describe("runs and timeline", () => {
    it("runs lists the served runs; timeline shows a run's events, by id and as `last`", async () => {
      const cwd = tempDir();
      const { ran, runId } = await runOnServer("two-coders", "3", cwd);

      const table = await shared(["runs", ...viaServer()], { cwd });
      expect(table.stderr).toBe("");
      expect(table.exitCode).toBe(0);
      expect(table.stdout).toMatch(new RegExp(`^${runId}\\s+statewave\\s+two-coders\\s`, "m"));
      const listed = await shared(["runs", "--json", ...viaServer()], { cwd });
      const runs = (JSON.parse(listed.stdout) as { runs: Array<{ runId: string }> }).runs;
      // Newest first: the run just made leads the list.
      expect(runs[0]?.runId).toBe(runId);
      expect(runs.map((run) => run.runId).sort()).toEqual((await servedRunIds()).sort());

      for (const which of [runId, "last"]) {
        const timeline = await shared(["timeline", which, ...viaServer()], { cwd });
        expect(timeline.stderr).toBe("");
        expect(timeline.exitCode).toBe(0);
        expect(timeline.stdout).toContain(`Run ${runId} · mode statewave · scenario two-coders`);
        expect(timeline.stdout).toMatch(/^T\+0\.0s\s+Run\s+run-start\s+/m);
        expect(timeline.stdout).toMatch(/\s+run-end\s+/);
      }
      const json = await shared(["timeline", runId, "--json", ...viaServer()], { cwd });
      const document = JSON.parse(json.stdout) as { runId: string; events: unknown[] };
      expect(document.runId).toBe(runId);
      expect(document.events.length).toBe((JSON.parse(ran.stdout) as { events: [] }).events.length);
    });

    it("timeline --follow prints a run's rows while it runs, and stops at its end", async () => {
      const cwd = tempDir();
      let runId: string | undefined;
      const running = shared(
        ["run", "--scenario", "auth-jwt", "--seed", "2", "--speed", "20", ...viaServer()],
        {
          cwd,
          onStdout: (stdout) => {
            runId ??= /· (sw-[0-9a-f]{8}) ·/.exec(stdout)?.[1];
          },
        },
      );
      let runEnded = false;
      void running.then(() => {
        runEnded = true;
      });
      await waitFor(() => expect(runId).toBeDefined());
      let followed = "";
      const following = shared(["timeline", String(runId), "--follow", ...viaServer()], {
        cwd,
        onStdout: (stdout) => {
          followed = stdout;
        },
      });
      // Rows arrive before the run has ended: it follows, it does not wait for the end.
      await waitFor(() => expect(followed).toMatch(/\s+agent-start\s+/), { timeoutMs: 20_000 });
      expect(runEnded).toBe(false);
      const [ran, result] = await Promise.all([running, following]);
      expect(ran.exitCode).toBe(0);
      expect(result.stderr).toBe("");
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain(`Following ${runId} (Ctrl-C to stop)`);
      expect(result.stdout).toMatch(/\s+run-end\s+/);
    });
  });

  describe("watch", () => {
    it("--once and --json show the served subject's decisions and what superseded what", async () => {
      const cwd = tempDir();
      const { runId } = await runOnServer("auth-jwt", "1", cwd);
      const once = await shared(["watch", runId, "--once", ...viaServer()], { cwd });
      expect(once.stderr).toBe("");
      expect(once.exitCode).toBe(0);
      expect(once.stdout).toMatch(new RegExp(`^Subject ${runId} · \\d+ episodes`));
      expect(once.stdout).toContain(
        "Planner on legacy-session-token: Deprecate legacy-session-token (replaced by JWT).",
      );
      expect(once.stdout).toMatch(/Superseded \(1\)/);

      const json = await shared(["watch", runId, "--json", ...viaServer()], { cwd });
      const view = JSON.parse(json.stdout) as { subjectId: string; decisions: unknown[] };
      expect(view.subjectId).toBe(runId);
      expect(view.decisions).toHaveLength(2);
    });
  });

  describe("demo", () => {
    it("without a terminal runs both panes through the server and prints the comparison", async () => {
      const cwd = tempDir();
      const before = await servedRunIds();
      const result = await shared(
        ["demo", "--baseline", "broadcast", "--speed", "1000", "--seed", "7", ...viaServer()],
        {
          cwd,
        },
      );
      expect(result.stderr).toBe("");
      expect(result.exitCode).toBe(0);
      const baseline = /== Messages to everyone · (bc-[0-9a-f]{8}) · late-decision/.exec(
        result.stdout,
      )?.[1];
      const sharedRun = /== Shared context · (sw-[0-9a-f]{8}) · late-decision/.exec(
        result.stdout,
      )?.[1];
      expect(result.stdout).toContain("== Comparison ==");
      expect(result.stdout).toMatch(/Outcome\s+collision\s+1 avoided/);
      expect(result.stdout).toContain(
        `Timeline of the shared-context run: shared-ctx timeline ${sharedRun} --store statewave --url ${server.url}`,
      );
      const added = (await servedRunIds()).filter((id) => !before.includes(id));
      expect(added.sort()).toEqual([baseline, sharedRun].sort());
      expect(existsSync(join(cwd, ".shared-ctx"))).toBe(false);
    });
  });

  describe("mcp (the built bin, over stdio)", () => {
    beforeAll(requireBuiltCli);

    it("answers tool calls from the served subject: a decision written through it is on the server", async () => {
      const cwd = tempDir();
      const subjectId = "mcp-repo";
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [bin, "mcp", "--subject", subjectId, "--agent", "alice", ...viaServer()],
        cwd,
        // Without the parent's STATEWAVE_URL or SHARED_CTX_* variables: only the flags choose.
        env: { PATH: process.env.PATH ?? "" },
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const client = new Client({ name: "test-alice", version: "0.0.0" });
      await client.connect(transport);
      try {
        const published = await client.callTool({
          name: "publish_decision",
          arguments: { content: "Use JWT for the API auth", target: "auth" },
        });
        expect(published.isError, JSON.stringify(published.content) + stderr).toBeFalsy();

        // Another agent's decision, written straight to the server, reaches this one.
        await served.createEpisode({
          subjectId,
          source: "bob",
          type: "architectural_decision",
          payload: { content: "Cache for 5 minutes", target: "cache" },
        });
        await served.compileMemories(subjectId);
        const read = await client.callTool({
          name: "check_shared_decisions",
          arguments: { task: "add caching and auth" },
        });
        expect(read.isError).toBeFalsy();
        const decisions = (read.structuredContent as { decisions: Array<{ content: string }> })
          .decisions;
        expect(decisions.map((decision) => decision.content).sort()).toEqual([
          "Cache for 5 minutes",
          "Use JWT for the API auth",
        ]);
      } finally {
        await client.close();
      }
      const timeline = await served.getTimeline(subjectId);
      expect(timeline.episodes).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            source: "alice",
            payload: expect.objectContaining({ content: "Use JWT for the API auth" }),
          }),
        ]),
      );
      expect(existsSync(join(cwd, ".shared-ctx"))).toBe(false);
    });
  });

  describe("when the server is down", () => {
    // One folder for these concurrent tests (useTempDir's per-test cleanup would remove a folder
    // another of them is still using).
    let cwd = "";
    beforeAll(() => {
      cwd = mkdtempSync(join(tmpdir(), "shared-ctx-server-down-"));
    });
    afterAll(() => {
      rmSync(cwd, { recursive: true, force: true });
    });
    const commands: ReadonlyArray<readonly [string, readonly string[]]> = [
      ["run", ["run", "--seed", "1", "--json"]],
      ["demo", ["demo", "--seed", "1", "--speed", "1000"]],
      ["runs", ["runs"]],
      ["timeline", ["timeline", "last"]],
      ["watch", ["watch", "my-repo"]],
    ];
    it.concurrent.for(commands)(
      "%s names the URL and how to start a server, and exits 1",
      async ([, argv], { expect }) => {
        const url = `http://127.0.0.1:${await closedPort()}`;
        const result = await shared([...argv, "--store", "statewave", "--url", url], { cwd });
        expect(result.exitCode).toBe(1);
        expect(result.stderr).toContain(`Cannot reach the Statewave server at ${url}`);
        expect(result.stderr).toContain("Start one with `npx shared-ctx serve`");
        expect(result.stderr.trim().split("\n")).toHaveLength(1);
        expect(existsSync(join(cwd, ".shared-ctx"))).toBe(false);
      },
    );
  });
});
