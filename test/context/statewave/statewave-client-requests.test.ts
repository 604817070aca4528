import { describe, expect, it } from "vitest";
import { CompileTimeoutError } from "../../../src/context/errors/compile-timeout-error.js";
import type { TimelineParams } from "../../../src/context/statewave/statewave-types.js";
import { clientOf, fakeStatewave, note } from "../support/fake-statewave.js";

describe("StatewaveClient requests", () => {
  it("sends a session id and an idempotency key when given, and no session for null", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    await client.createEpisode({ ...note, sessionId: "sess-1", idempotencyKey: "key-1" });
    // An episode read back carries `sessionId: null`; a caller that copies it must not send it.
    await client.createEpisode({ ...note, sessionId: null as unknown as string });
    await client.createEpisode(note);
    const bodies = server.sent.map((request) => request.body);
    const base = {
      subject_id: "s",
      source: "agent",
      type: "note",
      payload: { text: "hi" },
      metadata: {},
      provenance: {},
    };
    // Without a key of its own, each call gets a fresh one (retries are on), the same on every
    // attempt of that call.
    expect(bodies).toEqual([
      { ...base, session_id: "sess-1", idempotency_key: "key-1" },
      { ...base, idempotency_key: expect.any(String) },
      { ...base, idempotency_key: expect.any(String) },
    ]);
    expect(bodies[1]).not.toEqual(bodies[2]);
  });

  it("pages the subject list with limit and offset", async () => {
    const server = fakeStatewave();
    await clientOf(server).listSubjects({ limit: 2, offset: 4 });
    expect(server.sent.map(({ method, path, query }) => ({ method, path, query }))).toEqual([
      { method: "GET", path: "/v1/subjects", query: { limit: "2", offset: "4" } },
    ]);
  });

  it("takes a second argument carrying only a signal as the request options", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const stopped = AbortSignal.abort(new Error("caller stopped"));
    await expect(client.getTimeline("s", { signal: stopped })).rejects.toThrow("caller stopped");
  });

  it("with three arguments takes the second as params and the third as the options", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    // A params object that happens to carry a `signal` is still params when options follow.
    const params = { limit: 5, signal: AbortSignal.abort(new Error("not mine")) } as TimelineParams;
    await client.getTimeline("s", params, { signal: new AbortController().signal });
    expect(server.sent[0]?.query).toEqual({ subject_id: "s", limit: "5" });
  });

  it("gives up waiting for a compile job once exactly `timeout` ms have passed", async () => {
    const server = fakeStatewave();
    const times = [0, 1000];
    const client = clientOf(server, { now: () => times.shift() ?? 1000 });
    const error = await client
      .compileMemoriesWait("s", { timeout: 1000, pollInterval: 10 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CompileTimeoutError);
    // The job was started, never polled.
    expect(server.sent.map((request) => request.path)).toEqual(["/v1/memories/compile"]);
  });
});
