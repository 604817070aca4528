import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { StatewaveAPIError } from "../../src/context/statewave/errors/statewave-api-error.js";
import { StatewaveStore } from "../../src/context/statewave/statewave-store.js";
import { type RunningServer, startServer } from "../../src/server/listen.js";
import { useTempDir } from "../support/temp-dir.js";

/**
 * A compile that fails, end to end: a Statewave client polls a job on a real `serve` over
 * loopback, and the served database refuses one episode's memory (a trigger stands in for a
 * driver error whose text must never reach the client).
 */
describe("a compile job that ends `failed`, through serve over loopback", () => {
  const tempDir = useTempDir("shared-ctx-compile-failed-");
  let served: EmbeddedStore;
  let server: RunningServer;
  let client: StatewaveStore;

  beforeEach(async () => {
    const path = join(tempDir(), "served.db");
    served = new EmbeddedStore({ path });
    const db = new Database(path);
    db.exec(`CREATE TRIGGER refuse_poison BEFORE INSERT ON memories WHEN NEW.content = 'poison'
      BEGIN SELECT RAISE(ABORT, 'secret driver text'); END;`);
    db.close();
    server = await startServer({ store: served, port: 0 });
    client = new StatewaveStore({ baseUrl: server.url, pollIntervalMs: 20 });
  });

  afterEach(async () => {
    await client.close();
    await server.close();
  });

  const note = (content: string) =>
    client.createEpisode({
      subjectId: "s",
      source: "coder",
      type: "implementation_note",
      payload: { content },
    });

  it("compileMemoriesWait resolves with the failed job: its error names the episode, not the driver", async () => {
    await note("before");
    const bad = await note("poison");

    const job = await client.compileMemoriesWait("s", { pollIntervalMs: 20, timeoutMs: 10_000 });

    expect(job.status).toBe("failed");
    expect(job.error).toContain(bad.id);
    expect(job.error).not.toContain("secret driver text");
    // The job is still there to ask about, failed, with the same error.
    const again = await client.getCompileStatus(job.jobId);
    expect(again).toMatchObject({ jobId: job.jobId, status: "failed", error: job.error });
    // The episodes that did compile are memories; the subject is not blocked.
    const active = await client.searchMemories("s");
    expect(active.map((memory) => memory.content)).toEqual(["before"]);
    await note("after");
    const next = await client.compileMemoriesWait("s", { pollIntervalMs: 20, timeoutMs: 10_000 });
    expect(next).toMatchObject({ status: "completed", memoriesCreated: 1 });
  });

  it("the synchronous compile is a StatewaveAPIError 422 compile_failed naming the skipped episode", async () => {
    const bad = await note("poison");

    const error = await client.compileMemories("s").catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(StatewaveAPIError);
    const failure = error as StatewaveAPIError;
    expect(failure.statusCode).toBe(422);
    expect(failure.code).toBe("compile_failed");
    expect(failure.details).toMatchObject({
      subject_id: "s",
      skipped_episodes: [{ episode_id: bad.id, type: "implementation_note" }],
    });
    expect(JSON.stringify(failure.details)).not.toContain("secret driver text");
    expect(failure.message).not.toContain("secret driver text");
  });
});
