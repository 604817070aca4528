import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { createApp } from "../../src/server/app.js";

/** The fields these answers may have (each test reads the ones its route sends). */
interface WireBody {
  id: string;
  status: string;
  memories: Array<{ id: string; content: string }>;
  next_cursor: string;
  changes: Array<{ type: string }>;
  cursor: string;
  has_more: boolean;
  error: { code: string; details: Array<{ loc: string[] }> };
}

/**
 * The exact reads' routes on the wire (docs/server.md "Exact reads"): their shapes, and bad input
 * answered 4xx in Statewave's envelope, never 500. The stores' semantics are the contract's
 * (test/context/store-contract-exact-reads.ts, run through serve too).
 */
describe("serve's exact-read routes", () => {
  async function setUp() {
    const store = new EmbeddedStore({ path: ":memory:" });
    const decide = (target: string, content: string) => ({
      subjectId: "s",
      source: "architect",
      type: "architectural_decision",
      payload: { content, target },
    });
    const [first] = (
      await store.createEpisodesBatch([
        decide("modules/billing", "Use HS256"),
        decide("modules/auth", "Keep sessions"),
      ])
    ).episodes;
    await store.compileMemories("s");
    await store.createEpisode(decide("modules/billing", "Use RS256"));
    await store.compileMemories("s");
    const app = createApp({ store });
    const get = async (path: string, method = "GET") => {
      const response = await app.fetch(new Request(`http://test${path}`, { method }));
      return { status: response.status, body: (await response.json()) as WireBody };
    };
    return { store, get, firstEpisodeId: first?.id ?? "" };
  }

  it("lists memories by kind, repeated target, prefix and status, with a next_cursor", async () => {
    const { store, get } = await setUp();
    const billing = await get("/v1/memories?subject_id=s&target=modules/billing&status=any");
    expect(billing.status).toBe(200);
    expect(billing.body.memories.map((memory) => memory.content)).toEqual([
      "Use RS256",
      "Use HS256",
    ]);
    // Statewave's kind on the wire, ours in metadata.kind, as every other route answers.
    expect(billing.body.memories[0]).toMatchObject({
      kind: "episode_summary",
      metadata: { kind: "architectural_decision", target: "modules/billing" },
    });
    expect(billing.body.next_cursor).toBeNull();
    const both = await get(
      "/v1/memories?subject_id=s&kind=architectural_decision&target=modules/auth&target=modules/billing",
    );
    expect(both.body.memories).toHaveLength(2);
    const paged = await get("/v1/memories?subject_id=s&target_prefix=modules/&limit=1");
    expect(paged.body.memories).toHaveLength(1);
    const rest = await get(
      `/v1/memories?subject_id=s&target_prefix=modules/&limit=1&cursor=${encodeURIComponent(paged.body.next_cursor)}`,
    );
    expect(rest.body).toMatchObject({ next_cursor: null });
    expect(rest.body.memories[0]?.id).not.toBe(paged.body.memories[0]?.id);
    await store.close();
  });

  it("reads a memory and an episode by id; an unknown one is 404 not_found", async () => {
    const { store, get, firstEpisodeId } = await setUp();
    const [memory] = (await store.listMemories("s", { status: "superseded" })).memories;
    const found = await get(`/v1/memories/${memory?.id}?subject_id=s`);
    expect(found).toMatchObject({ status: 200, body: { id: memory?.id, status: "superseded" } });
    const episode = await get(`/v1/episodes/${firstEpisodeId}?subject_id=s`);
    expect(episode).toMatchObject({ status: 200, body: { id: firstEpisodeId, session_id: null } });
    for (const path of ["/v1/memories/nope?subject_id=s", "/v1/episodes/nope?subject_id=s"]) {
      expect(await get(path)).toMatchObject({
        status: 404,
        body: { error: { code: "not_found" } },
      });
    }
    expect(await get(`/v1/memories/${memory?.id}?subject_id=other`)).toMatchObject({ status: 404 });
    await store.close();
  });

  it("gives the changes since a cursor", async () => {
    const { store, get } = await setUp();
    const all = await get("/v1/changes?subject_id=s");
    expect(all.status).toBe(200);
    expect(all.body.has_more).toBe(false);
    expect(all.body.changes.map((change) => change.type)).toEqual([
      "episode",
      "episode",
      "episode",
      "memory",
      "memory",
      "memory",
    ]);
    const none = await get(`/v1/changes?subject_id=s&cursor=${all.body.cursor}`);
    expect(none.body).toEqual({ changes: [], cursor: all.body.cursor, has_more: false });
    const paged = await get("/v1/changes?subject_id=s&limit=1");
    expect(paged.body).toMatchObject({ has_more: true });
    expect(paged.body.changes).toHaveLength(2);
    await store.close();
  });

  it.each([
    ["a cursor of another read", "/v1/memories?subject_id=s&cursor=c1.0.0", "cursor"],
    ["a mangled cursor", "/v1/memories?subject_id=s&cursor=m1.-4", "cursor"],
    ["no subject", "/v1/memories?kind=x", "subject_id"],
    ["a limit over 500", "/v1/memories?subject_id=s&limit=501", "limit"],
    ["a limit that is no number", "/v1/memories?subject_id=s&limit=many", "limit"],
    ["an unknown status", "/v1/memories?subject_id=s&status=retired", "status"],
    ["an empty target", "/v1/memories?subject_id=s&target=", "target"],
    ["a changes cursor of another read", "/v1/changes?subject_id=s&cursor=m1.1", "cursor"],
    ["a by-id read without a subject", "/v1/memories/abc", "subject_id"],
    ["a timeline cursor that is not one", "/v1/timeline?subject_id=s&cursor=zzz", "cursor"],
    [
      "a timeline cursor with an offset",
      "/v1/timeline?subject_id=s&cursor=t1.0.0&offset=3",
      "offset",
    ],
  ])("answers %s with 422 naming the field", async (_label, path, field) => {
    const { store, get } = await setUp();
    const answer = await get(path);
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe("validation_error");
    expect(answer.body.error.details.map((detail) => detail.loc)).toContainEqual(
      expect.arrayContaining(["query", field]),
    );
    await store.close();
  });

  it("keeps Statewave's 405s on the paths the new ones sit beside", async () => {
    const { store, get } = await setUp();
    expect(await get("/v1/memories/compile")).toMatchObject({ status: 405 });
    expect(await get("/v1/episodes/batch")).toMatchObject({ status: 405 });
    expect(await get("/v1/memories?subject_id=s", "POST")).toMatchObject({ status: 405 });
    expect(await get("/v1/changes?subject_id=s", "DELETE")).toMatchObject({ status: 405 });
    await store.close();
  });
});

describe("serve's timeline paging", () => {
  async function setUp(count: number) {
    const store = new EmbeddedStore({ path: ":memory:" });
    await store.createEpisodesBatch(
      Array.from({ length: count }, (_, index) => ({
        subjectId: "s",
        source: "agent",
        type: "implementation_note",
        payload: { content: `note ${index}` },
      })),
    );
    await store.compileMemories("s");
    const app = createApp({ store });
    const get = async (query: string) => {
      const response = await app.fetch(new Request(`http://test/v1/timeline?subject_id=s${query}`));
      return (await response.json()) as {
        episodes: Array<{ payload: { content: string } }>;
        memories: unknown[];
        next_cursor?: string | null;
        episodes_has_more?: boolean;
        memories_has_more?: boolean;
      };
    };
    return { store, get };
  }
  const notes = (page: { episodes: Array<{ payload: { content: string } }> }) =>
    page.episodes.map((episode) => Number(episode.payload.content.split(" ")[1]));

  it("answers a bare request in v0.7.1's shape, field for field", async () => {
    const { store, get } = await setUp(3);
    expect(Object.keys(await get(""))).toEqual(["subject_id", "episodes", "memories"]);
    await store.close();
  });

  it("pages by next_cursor to the end, and says what is left", async () => {
    const { store, get } = await setUp(25);
    const seen: number[] = [];
    let page = await get("&limit=10");
    seen.push(...notes(page));
    expect(page).toMatchObject({ episodes_has_more: true, memories_has_more: true });
    while (typeof page.next_cursor === "string") {
      page = await get(`&limit=10&cursor=${page.next_cursor}`);
      seen.push(...notes(page));
    }
    expect(seen).toEqual(Array.from({ length: 25 }, (_, index) => index));
    expect(page).toMatchObject({ next_cursor: null, episodes_has_more: false });
    await store.close();
  });

  it("takes Statewave >= 1.5's newest_first with offset, rows still oldest first", async () => {
    const { store, get } = await setUp(25);
    const newest = await get("&limit=10&newest_first=true");
    expect(notes(newest)).toEqual([15, 16, 17, 18, 19, 20, 21, 22, 23, 24]);
    expect(newest).toMatchObject({ episodes_has_more: true, memories_has_more: true });
    const older = await get("&limit=10&offset=20&newest_first=true");
    expect(notes(older)).toEqual([0, 1, 2, 3, 4]);
    expect(older).toMatchObject({ episodes_has_more: false, memories_has_more: false });
    expect(older.next_cursor).toBeUndefined();
    await store.close();
  });
});
