import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/main.js";
import type { RunJsonDocument } from "../../src/cli/output.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { fromRunEventEpisode } from "../../src/scenario/run-record.js";
import { ruleFollowingReply, startFakeOpenAiServer } from "../llm/support/fake-openai-server.js";
import { type CapturedCliDeps, capturedCliDeps } from "../support/cli-deps.js";
import { useTempDir } from "../support/temp-dir.js";

// biome-ignore lint/correctness/useHookAtTopLevel: useTempDir is a vitest helper, not a React hook.
const tempDir = useTempDir("shared-ctx-run-cli-");
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function fakeDeps(env: Record<string, string> = {}) {
  return capturedCliDeps({ env, cwd: tempDir(), isTTY: false });
}

// Scenario timings are tens of seconds; at speed 2000 a run takes a few wall-clock milliseconds.
const fast = ["--speed", "2000", "--seed", "1"];

/** `shared-ctx run --task <task>` in `mode`, fast and seeded, on the store file s.db. */
function runTask(deps: CapturedCliDeps["deps"], mode: string, task: string, ...flags: string[]) {
  return runCli(["run", "--mode", mode, "--task", task, ...flags, ...fast, "--db", "s.db"], deps);
}

describe("shared-ctx run", () => {
  it("prints the naive collision as plain lines and a summary, exit 0", async () => {
    const { deps, stdout } = fakeDeps();
    const code = await runCli(["run", "--mode", "naive", ...fast, "--db", "store.db"], deps);
    expect(code).toBe(0);
    const output = stdout();
    expect(output).toMatch(/== .* · nv-[0-9a-z]{8} · auth-jwt · offline \(deterministic\) ==/);
    expect(output).toContain("legacy-session-token");
    expect(output).toMatch(/Collision: +yes/);
    expect(output).toMatch(/Built in vain: +1 module \(legacy-session-token\)/);
    expect(output).toMatch(/Brain: +offline \(deterministic\)/);
  });

  it("prints one JSON document with --json and keeps the events in the store", async () => {
    const { deps, cwd, stdout } = fakeDeps();
    const code = await runCli(
      ["run", "--mode", "naive", "--json", ...fast, "--db", "store.db"],
      deps,
    );
    expect(code).toBe(0);
    const document = JSON.parse(stdout()) as RunJsonDocument;
    expect(document).toMatchObject({
      mode: "naive",
      scenario: "auth-jwt",
      collision: true,
      escalations: 0,
      wasted: { modules: 1 },
      brain: "offline (deterministic)",
    });
    expect(document.runId).toMatch(/^nv-[0-9a-z]{8}$/);
    expect(document.totals.tokens).toBeGreaterThan(document.wasted.tokens);
    expect(document.events.at(-1)?.type).toBe("run-end");

    // Another process (here: another handle) reads the run back for `shared-ctx timeline`.
    const store = new EmbeddedStore({ path: join(cwd, "store.db") });
    closers.push(() => store.close());
    const timeline = await store.getTimeline(document.runId, { limit: 1000 });
    const events = timeline.episodes.map(fromRunEventEpisode);
    expect(events).toEqual(document.events);
  });

  it("runs a free-text task", async () => {
    const { deps, stdout } = fakeDeps();
    // A task that contradicts itself: the work it asks for touches what it retires.
    const task = "Retire legacy-cache. Build redis-cache and port legacy-cache to it.";
    const code = await runTask(deps, "naive", task, "--json");
    expect(code).toBe(0);
    expect(JSON.parse(stdout())).toMatchObject({
      scenario: "retire-legacy-cache-build",
      collision: true,
      wastedModules: ["legacy-cache"],
    });
  });

  describe("--task", () => {
    const task = "Replace the legacy password-reset module with magic links";

    it("shows the team, where each piece came from and what each mode will face, then runs it", async () => {
      const { deps, stdout } = fakeDeps();
      const code = await runTask(deps, "naive", task);
      expect(code).toBe(0);
      const output = stdout();
      expect(output).toContain("  Planner: decides deprecate legacy-password-reset");
      expect(output).toContain(
        "    magic-links: the task asks for it: 'Replace the legacy password-reset module with magic links'",
      );
      expect(output).toContain("  Coder 2: legacy-password-reset");
      expect(output).toContain("What each mode will face:");
      expect(output).toContain("(mid-build invalidation)");
      expect(output).toMatch(/Built in vain: +1 module \(legacy-password-reset\)/);
    });

    it("--json carries what was understood and the team", async () => {
      const { deps, stdout } = fakeDeps();
      const code = await runTask(deps, "statewave", `${task}. Tell the marketing team.`, "--json");
      expect(code).toBe(0);
      const document = JSON.parse(stdout());
      expect(document.understood).toEqual({
        decisions: [{ target: "legacy-password-reset", value: "deprecate", clause: task }],
        work: [
          { module: "magic-links", kind: "new", clause: task },
          { module: "legacy-password-reset", kind: "existing", clause: task },
        ],
        unparsed: ["Tell the marketing team"],
      });
      expect(document.team.map((member: { id: string }) => member.id)).toEqual([
        "planner",
        "coder-1",
        "coder-2",
        "reviewer",
      ]);
      expect(document.nothingToCoordinate).toBe(false);
      expect(document).toMatchObject({ collision: false, conflictsAvoided: 1 });
    });

    it("says plainly when there is nothing to coordinate", async () => {
      const { deps, stdout } = fakeDeps();
      const code = await runTask(deps, "statewave", "Build a dark mode toggle");
      expect(code).toBe(0);
      expect(stdout().trimEnd().split("\n").at(-1)).toBe(
        "Nothing here to coordinate: every mode does the same work (nothing is decided, and no two slices share a module).",
      );
    });

    it("exits 2 for a task with no work found, with the plain message (and --json says so too)", async () => {
      const plain = fakeDeps();
      expect(await runCli(["run", "--task", "Hello there", "--db", "s.db"], plain.deps)).toBe(2);
      expect(plain.stderr()).toContain("No work found in the task: there is nothing to build");
      expect(plain.stdout()).not.toContain("Summary");
      const json = fakeDeps();
      expect(
        await runCli(["run", "--task", "Hello there", "--json", "--db", "s.db"], json.deps),
      ).toBe(2);
      expect(JSON.parse(json.stdout())).toEqual({
        task: "Hello there",
        understood: { decisions: [], work: [], unparsed: ["Hello there"] },
      });
    });

    it("gives a model the same team shape and the same slices", async () => {
      // A model that follows the lead's plan; its review finds nothing (this test is about the prompts).
      const server = await startFakeOpenAiServer((request) =>
        request.schemaName === "review"
          ? { kind: "json", content: { findings: [] } }
          : ruleFollowingReply(request),
      );
      closers.push(() => server.close());
      const { deps, stdout } = fakeDeps({
        LLM_MODEL: "openai/test-model",
        LLM_API_KEY: "sk-test",
        LLM_BASE_URL: server.url,
      });
      const code = await runTask(deps, "naive", task, "--json");
      expect(code).toBe(0);
      const prompts = server.received.map((request) => request.prompt);
      expect(prompts).toContainEqual(
        expect.stringContaining(`You are the Planner "planner". Your part of the task: ${task}.`),
      );
      expect(prompts).toContainEqual(
        expect.stringContaining(
          'You are the Coder "coder-2". Your part of the task: legacy-password-reset is an existing module the task names',
        ),
      );
      expect(prompts).toContainEqual(
        expect.stringContaining("Your team lead expects these modules: legacy-password-reset"),
      );
      expect(JSON.parse(stdout()).team).toHaveLength(4);
    });
  });

  it("exits 2 for an unknown scenario", async () => {
    const { deps, stderr } = fakeDeps();
    expect(await runCli(["run", "--scenario", "nope", "--db", "s.db"], deps)).toBe(2);
    expect(stderr()).toContain("invalid scenario nope");
  });

  it("exits 2 for an invalid scenario file, naming the file and the field", async () => {
    const { deps, cwd, stderr } = fakeDeps();
    writeFileSync(
      join(cwd, "bad.json"),
      JSON.stringify({ name: "bad", title: "t", task: "t", agents: [] }),
    );
    expect(await runCli(["run", "--scenario", "bad.json", "--db", "s.db"], deps)).toBe(2);
    expect(stderr()).toContain(join(cwd, "bad.json"));
    expect(stderr()).toContain("timings: expected an object (the field is missing)");
    expect(stderr()).toContain("agents: expected a list of at least 1 item, received a list");
  });

  it("exits 2 for --scenario with --task, and for a bad --speed", async () => {
    const first = fakeDeps();
    expect(
      await runCli(["run", "--scenario", "auth-jwt", "--task", "x", "--db", "s.db"], first.deps),
    ).toBe(2);
    expect(first.stderr()).toContain("either --scenario or --task");
    const second = fakeDeps();
    expect(await runCli(["run", "--speed", "0"], second.deps)).toBe(2);
  });

  it("exits 2 for a malformed LLM_MODEL, naming the variable", async () => {
    const { deps, stderr } = fakeDeps({ LLM_MODEL: "gpt-4o" });
    expect(await runCli(["run", "--db", "s.db"], deps)).toBe(2);
    expect(stderr()).toContain("LLM_MODEL must be <provider>/<model>");
  });

  it("exits 1 when the model server refuses the key, naming LLM_API_KEY", async () => {
    const server = await startFakeOpenAiServer(() => ({ kind: "status", status: 401 }));
    closers.push(() => server.close());
    const { deps, stderr } = fakeDeps({
      LLM_MODEL: "openai/test-model",
      LLM_API_KEY: "wrong",
      LLM_BASE_URL: server.url,
    });
    expect(await runCli(["run", "--mode", "naive", ...fast, "--db", "s.db"], deps)).toBe(1);
    expect(stderr()).toMatch(/refused the API key \(HTTP 401\): check LLM_API_KEY/);
  });

  it("exits 1 when the model server cannot be reached, naming the URL and LLM_BASE_URL", async () => {
    // A server started and closed again: its port is free, nothing listens there now.
    const server = await startFakeOpenAiServer(() => ({ kind: "status", status: 500 }));
    await server.close();
    const { deps, stderr } = fakeDeps({
      LLM_MODEL: "openai/test-model",
      LLM_API_KEY: "sk-test",
      LLM_BASE_URL: server.url,
      LLM_MAX_RETRIES: "0",
    });
    expect(await runCli(["run", "--mode", "naive", ...fast, "--db", "s.db"], deps)).toBe(1);
    expect(stderr()).toContain(`cannot reach the model server at ${server.url} (`);
    expect(stderr()).toContain("check LLM_BASE_URL (and LLM_MODEL's provider)");
  });
});
