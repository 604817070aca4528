import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CliDeps } from "../../src/cli/cli-deps.js";
import { runCli } from "../../src/cli/main.js";
import type { RunJsonDocument } from "../../src/cli/output.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { fromRunEventEpisode } from "../../src/scenario/run-record.js";
import { startFakeOpenAiServer } from "../llm/support/fake-openai-server.js";
import { useTempDir } from "../support/temp-dir.js";

// biome-ignore lint/correctness/useHookAtTopLevel: useTempDir is a vitest helper, not a React hook.
const tempDir = useTempDir("shared-ctx-run-cli-");
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function fakeDeps(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const cwd = tempDir();
  const deps: CliDeps = {
    stdout: { write: (chunk: string) => out.push(chunk), isTTY: false },
    stderr: { write: (chunk: string) => err.push(chunk), isTTY: false },
    env,
    cwd,
    signal: new AbortController().signal,
  };
  return { deps, cwd, stdout: () => out.join(""), stderr: () => err.join("") };
}

// Scenario timings are tens of seconds; at speed 2000 a run takes a few wall-clock milliseconds.
const fast = ["--speed", "2000", "--seed", "1"];

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
    const code = await runCli(
      ["run", "--mode", "naive", "--task", task, "--json", ...fast, "--db", "s.db"],
      deps,
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout())).toMatchObject({
      scenario: "custom",
      collision: true,
      wastedModules: ["legacy-cache"],
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
