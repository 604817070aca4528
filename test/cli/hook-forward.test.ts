import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { forwardHook } from "../../src/cli/hook-forward.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { type RunningServer, startServer } from "../../src/server/listen.js";
import { makeRepository, recordDecision } from "../hooks/hook-harness.js";
import { closedPort } from "../support/closed-port.js";
import { useTempDir } from "../support/temp-dir.js";
import { bufferedDeps } from "./cli-harness.js";

describe("hook session-start --server URL", () => {
  const tempDir = useTempDir("shared-ctx-forward-");
  const running: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close()));
  });

  function start(root: string) {
    return {
      session_id: "s1",
      transcript_path: "/tmp/s1.jsonl",
      cwd: root,
      hook_event_name: "SessionStart",
      source: "startup",
    };
  }

  it("starts the loopback server on the project's store when it is down, then prints its answer", async () => {
    const root = makeRepository(join(tempDir(), "acme"), ["src/legacy-billing/index.ts"]);
    const db = join(root, ".shared-ctx", "store.db");
    await recordDecision(db, {
      author: "session-a",
      content: "Retire legacy-billing",
      target: "legacy-billing",
    });
    const port = await closedPort();
    const started: string[][] = [];
    const { deps, output } = bufferedDeps({ cwd: root });
    const stdin = Readable.from([
      Buffer.from(JSON.stringify(start(root))),
    ]) as unknown as NodeJS.ReadStream;
    await forwardHook(
      { server: `http://127.0.0.1:${port}`, subject: "acme", root },
      { ...deps, stdin },
      (args) => {
        started.push([...args]);
        // What the detached `shared-ctx serve` does, in-process.
        void startServer({
          store: new EmbeddedStore({ path: args[args.indexOf("--db") + 1] ?? "" }),
          port,
        }).then((server) => running.push(server));
      },
    );
    expect(started).toEqual([["serve", "--host", "127.0.0.1", "--port", String(port), "--db", db]]);
    const answer = JSON.parse(output().stdout);
    expect(answer.hookSpecificOutput.additionalContext).toContain("Retire legacy-billing");
  });

  it("tells the session, and the person, that its edits are not checked when the server cannot be reached", async () => {
    const root = makeRepository(join(tempDir(), "acme"), []);
    const { deps, output } = bufferedDeps({ cwd: root });
    const stdin = Readable.from([
      Buffer.from(JSON.stringify(start(root))),
    ]) as unknown as NodeJS.ReadStream;
    await forwardHook(
      { server: "http://shared-ctx.invalid:8100", root },
      { ...deps, stdin },
      () => {
        throw new Error("a server on another machine is never started from here");
      },
    );
    const answer = JSON.parse(output().stdout);
    expect(answer.systemMessage).toContain("cannot be reached");
    expect(answer.hookSpecificOutput.additionalContext).toContain("NOT checked");
  });
});
