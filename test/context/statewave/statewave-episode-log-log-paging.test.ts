import { describe, expect, it } from "vitest";
import type { Episode } from "../../../src/context/context-store.js";
import {
  logEpisodeKey,
  segmentSubject,
} from "../../../src/context/statewave/statewave-episode-log.js";
import type { CreateEpisodeParams } from "../../../src/context/statewave/statewave-types.js";
import { recordingStatewave, type TimelinePaging } from "../support/log-recording-statewave.js";

/** How EpisodeLog tells a paging server from a capped one, and which reads that costs. */
function episodes(count: number, prefix = "e"): CreateEpisodeParams[] {
  return Array.from({ length: count }, (_, index) => ({
    subjectId: "run",
    source: "writer",
    type: "state_update",
    payload: { content: `${prefix}-${index}` },
  }));
}

function contents(list: Episode[] | undefined): string[] | undefined {
  return list?.map((episode) => String(episode.payload.content));
}

async function seeded(paging: TimelinePaging, count: number) {
  const server = recordingStatewave(paging);
  if (count > 0) {
    await server.client().createEpisodesBatch(episodes(count).map((input) => ({ ...input })));
  }
  server.requests.length = 0;
  return server;
}

function aborted(): AbortSignal {
  const controller = new AbortController();
  controller.abort(new Error("stopped by the caller"));
  return controller.signal;
}

describe("EpisodeLog on its first read of a subject", () => {
  it.each([
    // A capped server answers every episode to `limit=1`: two or more tell at once.
    ["capped", 2, ["e-0", "e-1"], false, ["GET run limit=1", "GET run"]],
    // One episode: asked for the second, a capped server answers the first again.
    ["capped", 1, ["e-0"], false, ["GET run limit=1", "GET run limit=1 offset=1", "GET run"]],
    // Nothing to compare: no second probe, still unknown.
    ["capped", 0, [], undefined, ["GET run limit=1", "GET run"]],
    ["paged", 2, undefined, true, ["GET run limit=1", "GET run limit=1 offset=1"]],
    // A paging server with one episode answers none at offset 1: that cannot tell yet.
    ["paged", 1, ["e-0"], undefined, ["GET run limit=1", "GET run limit=1 offset=1", "GET run"]],
    ["paged-with-has-more", 1, undefined, true, ["GET run limit=1"]],
    ["paged-with-has-more", 0, undefined, true, ["GET run limit=1"]],
  ] as const)(
    "on a %s server with %i episode(s) returns %j, paged %s",
    async (paging, count, log, paged, requests) => {
      const server = await seeded(paging, count);
      const episodeLog = server.log();
      expect(contents(await episodeLog.read("run"))).toEqual(log);
      expect(episodeLog.paged).toBe(paged);
      expect(server.requests).toEqual(requests);
    },
  );

  it("probes only once: the next read of a capped server just reads the segment", async () => {
    const server = await seeded("capped", 2);
    const log = server.log();
    await log.read("run");
    server.requests.length = 0;
    expect(contents(await log.read("run"))).toEqual(["e-0", "e-1"]);
    expect(server.requests).toEqual(["GET run"]);
  });
});

describe("EpisodeLog with the caller's abort signal", () => {
  it("sends not even the probe when the signal is already aborted", async () => {
    const server = await seeded("capped", 2);
    await expect(server.log().read("run", aborted())).rejects.toThrow("stopped by the caller");
    expect(server.requests).toEqual([]);
  });

  it("does not send the second probe once the caller aborted during the first", async () => {
    const server = await seeded("capped", 1);
    const controller = new AbortController();
    server.onAnswered((line) => {
      if (line === "GET run limit=1") controller.abort(new Error("stopped by the caller"));
    });
    await expect(server.log().read("run", controller.signal)).rejects.toThrow(
      "stopped by the caller",
    );
    expect(server.requests).toEqual(["GET run limit=1"]);
  });

  it("does not read the segment of a known capped server once aborted", async () => {
    const server = await seeded("capped", 2);
    const log = server.log();
    await log.read("run");
    server.requests.length = 0;
    await expect(log.read("run", aborted())).rejects.toThrow("stopped by the caller");
    expect(server.requests).toEqual([]);
  });

  it("stores nothing on a known paging server once aborted", async () => {
    const server = await seeded("paged-with-has-more", 1);
    const log = server.log();
    expect(await log.read("run")).toBeUndefined();
    server.requests.length = 0;
    await expect(log.write("run", episodes(1, "late"), aborted())).rejects.toThrow(
      "stopped by the caller",
    );
    expect(server.requests).toEqual([]);
  });
});

describe("EpisodeLog reading segments", () => {
  it("shows an episode stored twice in a segment once (a retried write stores it again)", async () => {
    const server = await seeded("capped", 100);
    const client = server.client();
    const copy = (marker: string) => ({
      subjectId: segmentSubject("run", 1),
      source: "writer",
      type: "state_update",
      payload: { content: marker },
      metadata: { [logEpisodeKey]: marker },
    });
    await client.createEpisodesBatch([copy("late"), copy("late"), copy("later")]);
    const read = await server.log().read("run");
    expect(read?.map((episode) => episode.id).slice(-3)).toEqual([read?.[99]?.id, "late", "later"]);
    expect(contents(read)?.slice(-2)).toEqual(["late", "later"]);
    expect(read).toHaveLength(102);
  });

  it("takes a segment as the first 100 the server shows, even from a server showing more", async () => {
    const server = recordingStatewave("uncapped");
    const log = server.log();
    await log.write("run", episodes(75, "a"));
    await log.write("run", episodes(75, "b"));
    server.requests.length = 0;
    const read = await log.read("run");
    // The 50 past the first 100 are written again into segment 1, where every writer looks.
    expect(server.requests).toEqual([
      "GET run",
      `POST batch ${segmentSubject("run", 1)} x50`,
      `GET ${segmentSubject("run", 1)}`,
    ]);
    expect(contents(read)).toEqual([
      ...episodes(75, "a").map((input) => input.payload.content),
      ...episodes(75, "b").map((input) => input.payload.content),
    ]);
  });
});
