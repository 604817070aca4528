import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FatalError } from "../../../src/cli/fatal-error.js";
import { StatewaveClient } from "../../../src/context/statewave/statewave-client.js";
import { captureDeps, serveProgram, waitForText } from "../../support/serve-program.js";
import { useTempDir } from "../../support/temp-dir.js";

describe("shared-ctx serve", () => {
  const tempDir = useTempDir("serve-cli-");

  it("prints the URL, the database and the key policy, serves, and stops on abort", async () => {
    const cwd = tempDir();
    const controller = new AbortController();
    const { deps, out } = captureDeps({ SHARED_CTX_API_KEY: "k1" }, cwd, controller.signal);
    const running = serveProgram(deps).parseAsync(["serve", "--port", "0", "--db", "team.db"], {
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
    const running = serveProgram(deps).parseAsync(["serve", "--port", "0"], { from: "user" });
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
      const error = await serveProgram(deps)
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
      serveProgram(deps).parseAsync(["serve", "--port", "http"], { from: "user" }),
    ).rejects.toThrow();
    expect(err()).toContain("port number");
  });

  it("explains itself in --help", async () => {
    const { deps, out } = captureDeps({}, tempDir(), new AbortController().signal);
    await serveProgram(deps)
      .parseAsync(["serve", "--help"], { from: "user" })
      .catch(() => undefined);
    expect(out()).toContain("--port <port>");
    expect(out()).toContain("--host <host>");
    expect(out()).toContain("--db <path>");
    expect(out()).toContain("SHARED_CTX_API_KEY");
  });
});
