import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { useTempDir } from "../support/temp-dir.js";
import { runWholeCli } from "./cli-harness.js";

/** `shared-ctx: <what is wrong> (<hint>)`, alone on one line. */
const houseStyle = /^shared-ctx: [^\n]+ \([^\n]+\)\n$/;

describe("usage errors: one line in the house style, exit 2", () => {
  const tempDir = useTempDir("shared-ctx-usage-");

  it.each([
    [["rnu"], "unknown command 'rnu' (did you mean run?"],
    [["tiemline", "last"], "did you mean timeline?"],
    [
      ["frobnicate"],
      "(commands: demo, run, runs, scenario, timeline, watch, serve, mcp, bench, hook, check, modules, decide, retract, decisions, init, promote)",
    ],
    [
      ["bench", "foo"],
      "unknown command 'foo' for bench (commands: store, merge, startup, quickstart, scenarios, hooks, history, requests)",
    ],
    [["--bogus"], "unknown option '--bogus' (see shared-ctx --help)"],
    [["run", "--bogus"], "unknown option '--bogus' for run (see shared-ctx run --help)"],
    [["run", "--mde", "statewave"], "unknown option '--mde' for run (did you mean --mode?)"],
    [["run", "--mode"], "--mode needs a value (one of: naive, broadcast, group-chat, statewave)"],
    [
      ["run", "--mode", "foo"],
      "--mode 'foo' is not valid (one of: naive, broadcast, group-chat, statewave)",
    ],
    [
      ["demo", "--baseline", "x"],
      "--baseline 'x' is not valid (one of: group-chat, broadcast, naive)",
    ],
    [["run", "--speed", "abc"], "--speed 'abc' is not valid (expected a number > 0)"],
    [["watch"], "watch needs <subject> (usage: shared-ctx watch [options] <subject>)"],
    [["check", "--path", "a.ts"], "check needs --agent <name>"],
    [["runs", "last", "extra"], "too many arguments for runs"],
    [
      ["promote", "last", "--into", ""],
      "--into '' is not valid (expected a subject id, got nothing)",
    ],
    [["promote", "", "--into", "p"], "<run-id|subject> '' is not valid (expected a subject id"],
    [["watch", ""], "<subject> '' is not valid (expected a subject id, got nothing)"],
    [["timeline"], "timeline needs a run id, `last`, or --subject <id>"],
    [["timeline", "last", "--subject", "x"], "timeline takes a run id or --subject, not both"],
  ])("shared-ctx %j", async (argv, expected) => {
    const db = join(tempDir(), "store.db");
    const result = await runWholeCli(argv, { env: { SHARED_CTX_DB: db } });
    expect(result.exitCode).toBe(ExitCode.usage);
    expect(result.stderr).toMatch(houseStyle);
    expect(result.stderr).toContain(expected);
    expect(result.stdout).toBe("");
  });

  it("watch of a subject with nothing in it says so, lists the subjects there and the near miss", async () => {
    const db = join(tempDir(), "store.db");
    const store = new EmbeddedStore({ path: db });
    await store.createEpisode({
      subjectId: "my-repo",
      source: "claude-code",
      type: "architectural_decision",
      payload: { content: "Use JWT for the API auth", target: "auth" },
    });
    await store.close();
    for (const argv of [
      ["watch", "my-rep", "--once"],
      ["watch", "my-rep", "--json"],
    ]) {
      const result = await runWholeCli([...argv, "--db", db]);
      expect(result.exitCode).toBe(ExitCode.usage);
      expect(result.stderr).toMatch(houseStyle);
      expect(result.stderr).toContain(
        `nothing was written to subject "my-rep" in ${db} (did you mean my-repo? subjects: my-repo)`,
      );
    }
    // The subject itself still prints its view.
    const ok = await runWholeCli(["watch", "my-repo", "--once", "--db", db]);
    expect(ok.exitCode).toBe(ExitCode.ok);
    expect(ok.stdout).toContain("Subject my-repo");
  });

  it("serve on a host name that does not resolve names it, exit 2 (not `unexpected error`)", async () => {
    const db = join(tempDir(), "store.db");
    const result = await runWholeCli(
      ["serve", "--host", "nohost.invalid", "--port", "0", "--db", db],
      // With a key: a network bind without one is refused before the name is looked up.
      { env: { SHARED_CTX_API_KEY: "test-key" } },
    );
    expect(result.exitCode).toBe(ExitCode.usage);
    expect(result.stderr).toMatch(houseStyle);
    expect(result.stderr).toContain("cannot listen on --host nohost.invalid");
  });
});

describe("help", () => {
  it("bare shared-ctx prints the help to stdout and exits 0", async () => {
    const result = await runWholeCli([]);
    expect(result.exitCode).toBe(ExitCode.ok);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("Usage: shared-ctx [options] [command]");
    expect(result.stdout).toContain("Start here:");
  });

  it("a required option is shown as required, in the usage line and beside the option", async () => {
    const result = await runWholeCli(["check", "--help"]);
    expect(result.stdout).toContain("Usage: shared-ctx check --agent <name> --path <file...>");
    expect(result.stdout).toMatch(
      /--path <file\.\.\.> +the file\(s\) about to change \(required\)/,
    );
  });

  it("defaults and choices in one style, without JSON quotes", async () => {
    const result = await runWholeCli(["demo", "--help"]);
    expect(result.stdout.replace(/\s+/g, " ")).toContain(
      "(one of: group-chat, broadcast, naive; default: group-chat)",
    );
    expect(result.stdout).not.toMatch(/default: "/);
    expect(result.stdout).not.toContain("display help for command");
  });

  it.each([["demo"], ["run"], ["timeline"], ["watch"], ["serve"], ["runs"]])(
    "%s --help: the examples together, last",
    async (command) => {
      const result = await runWholeCli([command, "--help"]);
      const lines = result.stdout.trimEnd().split("\n");
      const start = lines.indexOf("Examples:");
      if (start === -1) return;
      // Each example, or the indented rest of one: no paragraph between them.
      for (const line of lines.slice(start + 1)) expect(line).toMatch(/^ {2}(\$ | {4})/);
    },
  );
});
