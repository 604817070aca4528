import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { createApp } from "../../src/server/app.js";

/** A store `serve` can run on, as the table opens it. */
export interface TableStore {
  forTenant(tenantId: string | null): ContextStore;
  close(): Promise<void>;
}

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

const postRaw =
  (path: string, body: string, headers: Record<string, string> = {}) =>
  () =>
    new Request(`${base}${path}`, { method: "POST", headers: { ...json, ...headers }, body });
const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  postRaw(path, JSON.stringify(body), headers);
const get =
  (path: string, headers: Record<string, string> = {}) =>
  () =>
    new Request(`${base}${path}`, { headers });

/** Requests every store must refuse with the same 4xx (never a 5xx), and lose nothing. */
const refused: Array<{ name: string; request: () => Request; status: number; code: string }> = [
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
    name: "U+0000 in the source",
    request: postJson("/v1/episodes", { ...episode("victim"), source: "a\u0000b" }),
    status: 422,
    code: "validation_error",
  },
  {
    name: "U+0000 in the subject_id",
    request: postJson("/v1/episodes", episode("a\u0000b")),
    status: 422,
    code: "validation_error",
  },
  {
    name: "an unpaired surrogate in the type",
    request: postRaw(
      "/v1/episodes",
      '{"subject_id":"victim","source":"a","type":"t\\ud800","payload":{}}',
    ),
    status: 422,
    code: "validation_error",
  },
  {
    name: "U+0000 in the session_id",
    request: postJson("/v1/episodes", { ...episode("victim"), session_id: "s\u0000" }),
    status: 422,
    code: "validation_error",
  },
  {
    name: "U+0000 in a timeline's subject_id",
    request: get("/v1/timeline?subject_id=%00"),
    status: 422,
    code: "validation_error",
  },
  {
    name: "U+0000 in a context's subject_id",
    request: postJson("/v1/context", { subject_id: "a\u0000", task: "x" }),
    status: 422,
    code: "validation_error",
  },
  {
    name: "U+0000 in a context's task",
    request: postJson("/v1/context", { subject_id: "victim", task: "a\u0000b" }),
    status: 422,
    code: "validation_error",
  },
  {
    name: "U+0000 in a search's q",
    request: get("/v1/memories/search?subject_id=victim&q=%00"),
    status: 422,
    code: "validation_error",
  },
  {
    name: "U+0000 in a search's kind",
    request: get("/v1/memories/search?subject_id=victim&kind=a%00"),
    status: 422,
    code: "validation_error",
  },
  {
    name: "U+0000 in a compile's subject_id",
    request: postJson("/v1/memories/compile", { subject_id: "a\u0000" }),
    status: 422,
    code: "validation_error",
  },
  {
    name: "U+0000 in a deleted subject id",
    request: () => new Request(`${base}/v1/subjects/a%00b`, { method: "DELETE" }),
    status: 422,
    code: "validation_error",
  },
  {
    name: "a 5,000-character tenant id",
    request: get("/v1/subjects", { "x-tenant-id": "t".repeat(5000) }),
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
    name: "a batch with U+0000 in one item's subject_id",
    request: postJson("/v1/episodes/batch", { episodes: [episode("victim"), episode("a\u0000")] }),
    status: 422,
    code: "validation_error",
  },
  {
    name: "a timeline limit out of range",
    request: get("/v1/timeline?subject_id=victim&limit=100000"),
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
    request: get("/v1/memories/compile/deadbeef"),
    status: 404,
    code: "not_found",
  },
];

/** Valid requests that hostile-looking text must not turn into a 5xx: answered as Statewave does. */
const accepted: Array<{ name: string; request: () => Request; status: number }> = [
  {
    name: "a context task with a 2,100-character word",
    request: postJson("/v1/context", { subject_id: "victim", task: `keep w${"x".repeat(2100)}` }),
    status: 200,
  },
  {
    name: "a search q of one 2,100-character word",
    request: get(`/v1/memories/search?subject_id=victim&q=${"x".repeat(2100)}`),
    status: 200,
  },
  {
    name: "an episode whose payload holds U+0000 and a 2,100-character word",
    request: postJson(
      "/v1/episodes",
      episode("victim", `nul \u0000 here, w${"y".repeat(2100)} and keep`),
    ),
    status: 201,
  },
  {
    name: "a 256-character tenant id",
    request: get("/v1/subjects", { "x-tenant-id": "t".repeat(256) }),
    status: 200,
  },
  {
    name: "control characters other than U+0000 in a subject id",
    request: postJson("/v1/episodes", episode("line\nbreak\u0001")),
    status: 201,
  },
];

/**
 * The bad-request table of `serve` on one store: each request answers its 4xx with the Statewave
 * envelope (or is served), never a 5xx, and an episode written before it is still there after.
 * `prepare` runs inside the `describe` and returns how to open the store.
 */
export function describeBadRequests(
  storeName: string,
  prepare: () => () => Promise<TableStore>,
  skip = false,
): void {
  describe.skipIf(skip)(
    `serve on ${storeName}: bad input gets a clear 4xx and loses nothing`,
    () => {
      const openStore = prepare();
      let store: TableStore;
      let app: ReturnType<typeof createApp>;
      const unexpected: unknown[] = [];

      beforeAll(async () => {
        store = await openStore();
        app = createApp({ store, onUnexpectedError: (error) => unexpected.push(error) });
      });
      afterAll(async () => {
        expect(unexpected).toEqual([]);
        await store?.close();
      });

      const send = (path: string, init: RequestInit = {}) =>
        Promise.resolve(app.fetch(new Request(`${base}${path}`, init)));

      async function writeVictim(): Promise<string> {
        const before = await send("/v1/episodes", {
          method: "POST",
          headers: json,
          body: JSON.stringify(episode("victim", "keep me")),
        });
        expect(before.status).toBe(201);
        return ((await before.json()) as { id: string }).id;
      }

      async function expectKept(id: string): Promise<void> {
        const timeline = (await (
          await send("/v1/timeline?subject_id=victim&limit=10000")
        ).json()) as { episodes: Array<{ id: string }> };
        expect(timeline.episodes.map((item) => item.id)).toContain(id);
      }

      it.each(refused)("$name -> $status $code", async (testCase) => {
        const stored = await writeVictim();
        const response = await app.fetch(testCase.request());
        expect(response.status).toBe(testCase.status);
        const body = (await response.json()) as ErrorBody;
        expect(body.error.code).toBe(testCase.code);
        await expectKept(stored);
      });

      it.each(accepted)("$name -> $status", async (testCase) => {
        const stored = await writeVictim();
        const response = await app.fetch(testCase.request());
        expect(response.status, await response.clone().text()).toBe(testCase.status);
        await expectKept(stored);
      });

      it("compiles an episode holding U+0000 into a memory without it, and the subject stays usable", async () => {
        const write = await send("/v1/episodes", {
          method: "POST",
          headers: json,
          body: JSON.stringify({
            ...episode("nul-subject", "before\u0000after"),
            payload: { content: "before\u0000after", target: "t\u0000x" },
          }),
        });
        expect(write.status).toBe(201);
        const compiled = await send("/v1/memories/compile", {
          method: "POST",
          headers: json,
          body: JSON.stringify({ subject_id: "nul-subject" }),
        });
        expect(compiled.status).toBe(200);
        const body = (await compiled.json()) as { memories: Array<{ content: string }> };
        expect(body.memories.map((memory) => memory.content)).toEqual(["beforeafter"]);
        // The episode itself is kept exactly as sent.
        const timeline = (await (await send("/v1/timeline?subject_id=nul-subject")).json()) as {
          episodes: Array<{ payload: { content: string } }>;
        };
        expect(timeline.episodes[0]?.payload.content).toBe("before\u0000after");
        const context = await send("/v1/context", {
          method: "POST",
          headers: json,
          body: JSON.stringify({ subject_id: "nul-subject", task: "before after" }),
        });
        expect(context.status).toBe(200);
      });
    },
  );
}
