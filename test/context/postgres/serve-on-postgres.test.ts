import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { createApp } from "../../../src/server/app.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("serve-on-postgres.test.ts") !== undefined;
const base = "http://test";
const json = { "content-type": "application/json" };

interface ErrorBody {
  error: { code: string; message: string; details?: Array<{ type: string; loc: unknown[] }> };
}

function episode(subjectId: string, content = "a note"): Record<string, unknown> {
  return {
    subject_id: subjectId,
    source: "agent",
    type: "implementation_note",
    payload: { content },
  };
}

describe.skipIf(skip)("serve on Postgres: bad input gets a clear 4xx and loses nothing", () => {
  const postgres = usePostgres(skip);
  let store: PostgresStore;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    store = new PostgresStore({ url: await postgres.database() });
    app = createApp({ store });
  });
  afterAll(async () => {
    await store?.close();
  });

  const send = (path: string, init: RequestInit = {}) =>
    Promise.resolve(app.fetch(new Request(`${base}${path}`, init)));
  const postRaw = (path: string, body: string) => () =>
    new Request(`${base}${path}`, { method: "POST", headers: json, body });
  const postJson = (path: string, body: unknown) => postRaw(path, JSON.stringify(body));

  const cases: Array<{ name: string; request: () => Request; status: number; code: string }> = [
    {
      name: "malformed JSON",
      request: postRaw("/v1/episodes", '{"subject_id": '),
      status: 422,
      code: "validation_error",
    },
    {
      name: "a missing subject_id",
      request: postJson("/v1/episodes", { source: "a", type: "t", payload: {} }),
      status: 422,
      code: "validation_error",
    },
    {
      name: "a subject_id over 256 characters",
      request: postJson("/v1/episodes", episode("x".repeat(257))),
      status: 422,
      code: "validation_error",
    },
    {
      name: "a payload that is not an object",
      request: postJson("/v1/episodes", { ...episode("victim"), payload: [1, 2] }),
      status: 422,
      code: "validation_error",
    },
    {
      name: "U+0000 in the source (Postgres text cannot hold it)",
      request: postJson("/v1/episodes", { ...episode("victim"), source: "a\u0000b" }),
      status: 422,
      code: "validation_error",
    },
    {
      name: "a batch of 101",
      request: postJson("/v1/episodes/batch", {
        episodes: Array.from({ length: 101 }, () => episode("victim")),
      }),
      status: 422,
      code: "validation_error",
    },
    {
      name: "a batch with one bad item",
      request: postJson("/v1/episodes/batch", { episodes: [episode("victim"), episode("")] }),
      status: 422,
      code: "validation_error",
    },
    {
      name: "a timeline limit out of range",
      request: () => new Request(`${base}/v1/timeline?subject_id=victim&limit=100000`),
      status: 422,
      code: "validation_error",
    },
    {
      name: "a context budget of zero",
      request: postJson("/v1/context", { subject_id: "victim", task: "x", max_tokens: 0 }),
      status: 422,
      code: "validation_error",
    },
    {
      name: "an unknown compile job",
      request: () => new Request(`${base}/v1/memories/compile/deadbeef`),
      status: 404,
      code: "not_found",
    },
  ];

  it.each(cases)("$name -> $status $code", async (testCase) => {
    const before = await send("/v1/episodes", {
      method: "POST",
      headers: json,
      body: JSON.stringify(episode("victim", "keep me")),
    });
    expect(before.status).toBe(201);
    const stored = (await before.json()) as { id: string };

    const response = await app.fetch(testCase.request());
    expect(response.status).toBe(testCase.status);
    const body = (await response.json()) as ErrorBody;
    expect(body.error.code).toBe(testCase.code);

    const timeline = (await (await send("/v1/timeline?subject_id=victim&limit=10000")).json()) as {
      episodes: Array<{ id: string }>;
    };
    expect(timeline.episodes.map((item) => item.id)).toContain(stored.id);
  });

  it("answers 503 service_unavailable, naming nothing internal, when its database is unreachable", async () => {
    const down = new PostgresStore({ url: "postgres://agent:s3cret@127.0.0.1:1/none" });
    try {
      const response = await createApp({ store: down }).fetch(new Request(`${base}/v1/subjects`));
      expect(response.status).toBe(503);
      const body = (await response.json()) as ErrorBody;
      expect(body.error.code).toBe("service_unavailable");
      expect(JSON.stringify(body)).not.toContain("s3cret");
    } finally {
      await down.close();
    }
  });
});
