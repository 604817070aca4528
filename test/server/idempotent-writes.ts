import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { StatewaveClient } from "../../src/context/statewave/statewave-client.js";
import { createApp } from "../../src/server/app.js";

/** A store `serve` can run on, as these tests open it. */
export interface KeyedStore {
  forTenant(tenantId: string | null): ContextStore;
  close(): Promise<void>;
}

const base = "http://test";
const json = { "content-type": "application/json" };

interface WireEpisode {
  id: string;
  subject_id: string;
  payload: { content: string };
  created_at: string;
}

function episode(subjectId: string, content: string, key?: string): Record<string, unknown> {
  return {
    subject_id: subjectId,
    source: "agent",
    type: "implementation_note",
    payload: { content },
    ...(key !== undefined ? { idempotency_key: key } : {}),
  };
}

/**
 * Idempotent writes through `serve` on one store (Statewave v1.1's `idempotency_key`, contract
 * §7): one key, one episode, and every later create with it answers with the first. `prepare`
 * runs inside the `describe` and returns how to open the store.
 */
export function describeIdempotentWrites(
  storeName: string,
  prepare: () => () => Promise<KeyedStore>,
  skip = false,
): void {
  describe.skipIf(skip)(`serve on ${storeName}: idempotency keys`, () => {
    const openStore = prepare();
    let store: KeyedStore;
    let app: ReturnType<typeof createApp>;
    let subject = 0;
    const fresh = () => {
      subject += 1;
      return `keyed-${subject}`;
    };

    beforeAll(async () => {
      store = await openStore();
      app = createApp({ store });
    });
    afterAll(async () => {
      await store?.close();
    });

    async function post(
      path: string,
      body: unknown,
      headers: Record<string, string> = {},
    ): Promise<{ status: number; body: Record<string, unknown> }> {
      const response = await app.fetch(
        new Request(`${base}${path}`, {
          method: "POST",
          headers: { ...json, ...headers },
          body: JSON.stringify(body),
        }),
      );
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }

    async function timeline(subjectId: string, tenant?: string): Promise<WireEpisode[]> {
      const response = await app.fetch(
        new Request(`${base}/v1/timeline?subject_id=${encodeURIComponent(subjectId)}`, {
          headers: tenant === undefined ? {} : { "x-tenant-id": tenant },
        }),
      );
      return ((await response.json()) as { episodes: WireEpisode[] }).episodes;
    }

    it("stores one episode for two creates with one key, and answers the second with the first", async () => {
      const id = fresh();
      const first = await post("/v1/episodes", episode(id, "first", "k-1"));
      const second = await post("/v1/episodes", episode(id, "second, different", "k-1"));
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.body).toEqual(first.body);
      expect((await timeline(id)).map((item) => item.payload.content)).toEqual(["first"]);
    });

    it("keeps keys apart per subject and per tenant, and never de-duplicates keyless creates", async () => {
      const a = fresh();
      const b = fresh();
      await post("/v1/episodes", episode(a, "in a", "shared-key"));
      await post("/v1/episodes", episode(b, "in b", "shared-key"));
      await post("/v1/episodes", episode(a, "tenant t", "shared-key"), { "x-tenant-id": "t" });
      await post("/v1/episodes", episode(a, "no key"));
      await post("/v1/episodes", episode(a, "no key"));
      expect((await timeline(a)).map((item) => item.payload.content)).toEqual([
        "in a",
        "no key",
        "no key",
      ]);
      expect((await timeline(b)).map((item) => item.payload.content)).toEqual(["in b"]);
      expect((await timeline(a, "t")).map((item) => item.payload.content)).toEqual(["tenant t"]);
    });

    it("a batch answers a stored key and a key repeated in the batch with the first episode", async () => {
      const id = fresh();
      const stored = await post("/v1/episodes", episode(id, "stored", "k-stored"));
      const batch = await post("/v1/episodes/batch", {
        episodes: [
          episode(id, "new", "k-new"),
          episode(id, "again", "k-stored"),
          episode(id, "repeat", "k-new"),
          episode(id, "keyless"),
        ],
      });
      expect(batch.status).toBe(201);
      const episodes = batch.body.episodes as WireEpisode[];
      expect(episodes.map((item) => item.payload.content)).toEqual([
        "new",
        "stored",
        "new",
        "keyless",
      ]);
      expect(episodes[1]?.id).toBe(stored.body.id);
      expect(episodes[2]?.id).toBe(episodes[0]?.id);
      // Counted as the batch's episodes: a retried batch answers as the first did.
      expect(batch.body.episodes_created).toBe(4);
      expect((await timeline(id)).map((item) => item.payload.content)).toEqual([
        "stored",
        "new",
        "keyless",
      ]);
      const retried = await post("/v1/episodes/batch", {
        episodes: [
          episode(id, "new", "k-new"),
          episode(id, "again", "k-stored"),
          episode(id, "repeat", "k-new"),
        ],
      });
      expect((retried.body.episodes as WireEpisode[]).map((item) => item.id)).toEqual(
        episodes.slice(0, 3).map((item) => item.id),
      );
      expect(await timeline(id)).toHaveLength(3);
    });

    it("stores one episode for 20 concurrent creates with one key", async () => {
      const id = fresh();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          post("/v1/episodes", episode(id, `try ${index}`, "k-race")),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 201));
      expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
      expect(await timeline(id)).toHaveLength(1);
    });

    it("refuses a key that breaks the id rule with a 422 naming the field", async () => {
      const answer = await post("/v1/episodes", episode(fresh(), "x", "a\u0000b"));
      expect(answer.status).toBe(422);
      expect(JSON.stringify(answer.body)).toContain("idempotency_key");
    });

    it("our client's retry after a timeout whose first attempt was stored stores once", async () => {
      const id = fresh();
      let attempts = 0;
      const client = new StatewaveClient({
        baseUrl: base,
        maxRetries: 2,
        delay: async () => undefined,
        // The first attempt reaches the server and is stored, then its answer is lost.
        fetch: async (input, init) => {
          attempts += 1;
          const response = await app.fetch(new Request(input, init));
          if (attempts === 1) {
            throw new DOMException("The operation timed out.", "TimeoutError");
          }
          return response;
        },
      });
      const created = await client.createEpisode({
        subjectId: id,
        source: "agent",
        type: "implementation_note",
        payload: { content: "once" },
      });
      expect(attempts).toBe(2);
      const stored = await timeline(id);
      expect(stored.map((item) => item.id)).toEqual([created.id]);
    });
  });
}
