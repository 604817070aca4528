import { describe, expect, it } from "vitest";
import type { CreateEpisodeInput, Episode } from "../../../src/context/context-store.js";
import { segmentSubject } from "../../../src/context/statewave/statewave-episode-log.js";
import type { CreateEpisodeParams } from "../../../src/context/statewave/statewave-types.js";
import { recordingStatewave } from "../support/log-recording-statewave.js";

/** When EpisodeLog reads before writing, where it writes past segment 0, and what close reads. */
function episodes(count: number, prefix: string, subjectId = "run"): CreateEpisodeParams[] {
  return Array.from({ length: count }, (_, index) => ({
    subjectId,
    source: prefix,
    type: "state_update",
    payload: { content: `${prefix}-${index}` },
  }));
}

function contents(list: Episode[] | undefined): string[] | undefined {
  return list?.map((episode) => String(episode.payload.content));
}

const segment1 = segmentSubject("run", 1);

/** A log that knows the server is capped (it read another subject of two episodes). */
async function cappedLog(server: ReturnType<typeof recordingStatewave>) {
  await server.client().createEpisodesBatch(episodes(2, "other", "other"));
  const log = server.log();
  await log.read("other");
  expect(log.paged).toBe(false);
  server.requests.length = 0;
  return log;
}

describe("EpisodeLog writing near the end of a segment", () => {
  it("writes blind below 90 known episodes; the write reaching 90 probes and reads first", async () => {
    const server = recordingStatewave();
    const log = server.log();
    await log.write("run", episodes(89, "a"));
    expect(server.requests).toEqual(["POST batch run x89"]);
    server.requests.length = 0;
    const [last] = await log.write("run", episodes(1, "b"));
    expect(server.requests).toEqual(["GET run limit=1", "GET run", "POST one run"]);
    expect(last?.payload.content).toBe("b-0");
    expect(log.paged).toBe(false);
  });

  it("writes straight to the subject once the write reaching 90 finds a paging server", async () => {
    const server = recordingStatewave("paged-with-has-more");
    const log = server.log();
    await log.write("run", episodes(90, "a"));
    expect(server.requests).toEqual(["GET run limit=1", "POST batch run x90"]);
    expect(await log.read("run")).toBeUndefined();
  });

  it("continues in segment 1 when the 90th known episode finds the subject filled by another writer", async () => {
    const server = recordingStatewave();
    const mine = await cappedLog(server);
    await mine.write("run", episodes(45, "mine"));
    expect(server.requests).toEqual(["POST batch run x45"]);
    await server.log().write("run", episodes(55, "other"));
    server.requests.length = 0;

    const note = { ...episodes(1, "note")[0], type: "implementation_note" } as CreateEpisodeInput;
    const written = await mine.write("run", [note, ...episodes(44, "late")]);
    // Only the note goes to the subject too (the server compiles it there); all 45 to segment 1.
    expect(server.requests).toEqual([
      "GET run",
      `GET ${segment1}`,
      "POST one run",
      `POST batch ${segment1} x45`,
    ]);
    expect(written[0]?.id).not.toMatch(/^copy-/);
    expect(written.slice(1).map((episode) => episode.id)).toEqual(
      Array.from({ length: 44 }, (_, index) => `copy-${index + 1}`),
    );
    expect(written.map((episode) => episode.subjectId)).toEqual(written.map(() => "run"));

    const read = await server.log().read("run");
    expect(read).toHaveLength(145);
    const ids = (list: Episode[] | undefined) => list?.map((episode) => episode.id);
    expect(ids(read?.slice(100))).toEqual(ids(written));
    expect(contents(read?.slice(100))).toEqual(contents(written));
  });

  it("writes more than 100 episodes to a segment in batches of 100, keeping all in order", async () => {
    const server = recordingStatewave();
    await server.client().createEpisodesBatch(episodes(100, "first"));
    const log = server.log();
    await log.read("run");
    server.requests.length = 0;
    await log.write("run", episodes(150, "next"));
    expect(server.requests).toEqual([
      `GET ${segment1}`,
      `POST batch ${segment1} x100`,
      `POST batch ${segment1} x50`,
    ]);
    // The writer's next read finds segment 1 full and writes the 50 it does not show into segment 2.
    const all = contents([...episodes(100, "first"), ...episodes(150, "next")] as Episode[]);
    expect(contents(await log.read("run"))).toEqual(all);
    expect(contents(await server.log().read("run"))).toEqual(all);
  });

  it("keeps metadata, provenance and session of an episode rewritten into the next segment", async () => {
    const server = recordingStatewave();
    await server.client().createEpisodesBatch(episodes(100, "first"));
    const log = server.log();
    const [input] = episodes(1, "kept");
    await log.write("run", [
      { ...input, metadata: { topic: "cache" }, provenance: { tool: "x" }, sessionId: "s-1" },
    ] as CreateEpisodeInput[]);
    const last = (await log.read("run"))?.at(-1);
    expect(last).toMatchObject({
      payload: { content: "kept-0" },
      metadata: { topic: "cache" },
      provenance: { tool: "x" },
      sessionId: "s-1",
    });
    expect(server.requests).toContain(`POST one ${segment1}`);
  });
});

describe("EpisodeLog.flush (closing)", () => {
  it("reads only subjects whose unseen episodes could have overflowed their segment", async () => {
    const server = recordingStatewave();
    const log = server.log();
    await log.write("small", episodes(49, "s", "small"));
    await log.write("half", episodes(50, "h", "half"));
    await log.write("seen", episodes(60, "v", "seen"));
    await log.read("seen");
    server.requests.length = 0;
    await log.flush();
    expect(server.requests).toEqual(["GET half"]);
  });

  it("reads a subject past segment 0 with a single unseen episode", async () => {
    const server = recordingStatewave();
    await server.client().createEpisodesBatch(episodes(100, "first"));
    const log = server.log();
    await log.read("run");
    await log.write("run", episodes(3, "next"));
    server.requests.length = 0;
    await log.flush();
    expect(server.requests).toEqual([`GET ${segment1}`]);
  });

  it("reads nothing once the server is known to page", async () => {
    const server = recordingStatewave("paged-with-has-more");
    const log = server.log();
    await log.write("early", episodes(60, "e", "early"));
    await log.write("run", episodes(90, "a"));
    expect(log.paged).toBe(true);
    server.requests.length = 0;
    await log.flush();
    expect(server.requests).toEqual([]);
  });
});

describe("EpisodeLog.forget", () => {
  it("names segment 1 of a subject it never read (another writer may have made it)", () => {
    expect(recordingStatewave().log().forget("run")).toEqual([segment1]);
  });

  it("names every segment it knows, and the next one", async () => {
    const server = recordingStatewave();
    await server.client().createEpisodesBatch(episodes(100, "first"));
    const log = server.log();
    await log.read("run");
    expect(log.forget("run")).toEqual([segment1, segmentSubject("run", 2)]);
  });
});
