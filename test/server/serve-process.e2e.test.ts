import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { StatewaveClient } from "../../src/context/statewave/statewave-client.js";
import { spawnTsChild, waitForExit } from "../support/run-child.js";
import { useTempDir } from "../support/temp-dir.js";

describe("shared-ctx serve as a process", () => {
  const tempDir = useTempDir("serve-process-");

  it("serves, then on SIGTERM closes the database and exits 0 with nothing lost", async () => {
    const db = join(tempDir(), "served.db");
    const child = spawnTsChild("test/server/fixtures/serve-child.ts", ["--port", "0", "--db", db], {
      SHARED_CTX_API_KEY: "",
    });
    const exited = waitForExit(child);
    let stdout = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      child.once("exit", () => reject(new Error(`serve exited early: ${stdout}`)));
    });

    const client = new StatewaveClient({ baseUrl: url });
    const created = await client.createEpisodesBatch(
      Array.from({ length: 20 }, (_, index) => ({
        subjectId: "durable",
        source: "agent",
        type: "implementation_note",
        payload: { index },
      })),
    );
    await client.close();

    child.kill("SIGTERM");
    const result = await exited;
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(stdout + result.stdout).toContain("stopped; database closed");

    const reopened = new EmbeddedStore({ path: db });
    const timeline = await reopened.getTimeline("durable");
    expect(timeline.episodes.map((episode) => episode.id)).toEqual(
      created.episodes.map((episode) => episode.id),
    );
    await reopened.close();
  });
});
