import { createServer } from "node:net";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import type { CliDeps } from "../../../src/cli/cli-deps.js";
import { makeServeCommand } from "../../../src/cli/commands/serve.js";
import { FatalError } from "../../../src/cli/fatal-error.js";
import { StatewaveClient } from "../../../src/context/statewave/statewave-client.js";
import { useTempDir } from "../../support/temp-dir.js";

function captureDeps(env: Record<string, string>, cwd: string, signal: AbortSignal) {
  let stdout = "";
  let stderr = "";
  const deps: CliDeps = {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env,
    cwd,
    signal,
  };
  return { deps, out: () => stdout, err: () => stderr };
}

function program(deps: CliDeps): Command {
  const output = {
    writeOut: (text: string) => deps.stdout.write(text),
    writeErr: (text: string) => deps.stderr.write(text),
  };
  // addCommand() does not pass output settings down, so the subcommand gets them itself.
  const serve = makeServeCommand(deps).exitOverride().configureOutput(output);
  return new Command("shared-ctx").exitOverride().configureOutput(output).addCommand(serve);
}

async function waitForText(read: () => string, pattern: RegExp): Promise<RegExpExecArray> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const match = pattern.exec(read());
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never printed ${pattern}: ${read()}`);
}

describe("shared-ctx serve", () => {
  const tempDir = useTempDir("serve-cli-");

  it("prints the URL, the database and the key policy, serves, and stops on abort", async () => {
    const cwd = tempDir();
    const controller = new AbortController();
    const { deps, out } = captureDeps({ SHARED_CTX_API_KEY: "k1" }, cwd, controller.signal);
    const running = program(deps).parseAsync(["serve", "--port", "0", "--db", "team.db"], {
      from: "user",
    });
    const [, url] = await waitForText(out, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect(out()).toContain(join(cwd, "team.db"));
    expect(out()).toContain("API key:  required");

    const client = new StatewaveClient({ baseUrl: url, apiKey: "k1" });
    await client.createEpisode({ subjectId: "s", source: "a", type: "t", payload: {} });
    expect((await client.getTimeline("s")).episodes).toHaveLength(1);
    await client.close();

    controller.abort();
    await running;
    expect(out()).toContain("stopped; database closed");
  });

  it("uses SHARED_CTX_DB and says when no key is required", async () => {
    const cwd = tempDir();
    const controller = new AbortController();
    const db = join(cwd, "from-env.db");
    const { deps, out } = captureDeps({ SHARED_CTX_DB: db }, cwd, controller.signal);
    const running = program(deps).parseAsync(["serve", "--port", "0"], { from: "user" });
    await waitForText(out, /listening on/);
    expect(out()).toContain(db);
    expect(out()).toContain("API key:  not required");
    controller.abort();
    await running;
  });

  it("reports a port in use with the port and a hint", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const address = blocker.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      const { deps } = captureDeps({}, tempDir(), new AbortController().signal);
      const error = await program(deps)
        .parseAsync(["serve", "--port", String(port)], { from: "user" })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(FatalError);
      expect((error as Error).message).toContain(`Port ${port}`);
      expect((error as Error).message).toContain("--port");
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it("refuses a port that is not a number", async () => {
    const { deps, err } = captureDeps({}, tempDir(), new AbortController().signal);
    await expect(
      program(deps).parseAsync(["serve", "--port", "http"], { from: "user" }),
    ).rejects.toThrow();
    expect(err()).toContain("port number");
  });

  it("explains itself in --help", async () => {
    const { deps, out } = captureDeps({}, tempDir(), new AbortController().signal);
    await program(deps)
      .parseAsync(["serve", "--help"], { from: "user" })
      .catch(() => undefined);
    expect(out()).toContain("--port <port>");
    expect(out()).toContain("--host <host>");
    expect(out()).toContain("--db <path>");
    expect(out()).toContain("SHARED_CTX_API_KEY");
  });
});
