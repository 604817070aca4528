import { describe, expect, it } from "vitest";
import { pydanticTimestamp } from "../../../src/server/compat/statewave-v0-7-1.js";
import { emulatorClient } from "./emulator-client.js";

interface MemoryWire {
  id: string;
  kind: string;
  content: string;
  status: string;
  valid_from: string;
  valid_to: string | null;
  created_at: string;
}

interface EpisodeWire {
  id: string;
  subject_id: string;
  created_at: string;
}

const memoriesOf = (body: unknown) => (body as { memories: MemoryWire[] }).memories;
const episodesOf = (body: unknown) => (body as { episodes: EpisodeWire[] }).episodes;

describe("pydanticTimestamp", () => {
  it.each([
    [0, 0, "1970-01-01T00:00:00Z"],
    [1500, 0, "1970-01-01T00:00:01.500000Z"],
    [1500.9, 0, "1970-01-01T00:00:01.500000Z"],
    [1000, 7, "1970-01-01T00:00:01.000007Z"],
    [1999, 999, "1970-01-01T00:00:01.999999Z"],
  ])("writes %d ms + %d µs as %s", (ms, micros, expected) => {
    expect(pydanticTimestamp(ms, micros)).toBe(expected);
  });

  it("leaves microseconds out by default", () => {
    expect(pydanticTimestamp(2000)).toBe("1970-01-01T00:00:02Z");
  });
});

describe("the Statewave v0.7.1 emulation: storing episodes", () => {
  it("stamps each transaction strictly later, one microsecond apart under a frozen clock", async () => {
    let clock = 1000;
    const { post, episode } = emulatorClient({ now: () => clock });
    const first = await post("/v1/episodes", episode());
    const second = await post("/v1/episodes", episode());
    const batch = await post("/v1/episodes/batch", { episodes: [episode(), episode()] });
    clock = 5000;
    const later = await post("/v1/episodes", episode());
    expect((first.body as EpisodeWire).created_at).toBe("1970-01-01T00:00:01Z");
    expect((second.body as EpisodeWire).created_at).toBe("1970-01-01T00:00:01.000001Z");
    expect(episodesOf(batch.body).map((row) => row.created_at)).toEqual([
      "1970-01-01T00:00:01.000002Z",
      "1970-01-01T00:00:01.000002Z",
    ]);
    expect((later.body as EpisodeWire).created_at).toBe("1970-01-01T00:00:05Z");
  });

  it("answers the stored episode with defaults for the optional fields", async () => {
    const { post } = emulatorClient();
    const answer = await post("/v1/episodes", {
      subject_id: "s",
      source: "user",
      type: "note",
      payload: { text: "hello" },
    });
    expect(answer).toEqual({
      status: 201,
      requestId: "generated-request-id",
      body: {
        id: "id-1",
        subject_id: "s",
        source: "user",
        type: "note",
        payload: { text: "hello" },
        metadata: {},
        provenance: {},
        session_id: null,
        created_at: "1970-01-01T00:00:01Z",
      },
    });
  });

  it("re-orders object keys as JSONB does: shorter keys first, then bytewise, at every depth", async () => {
    const { post, episode } = emulatorClient();
    const nested = { bb: 1, a: { zz: 1, y: 2 }, é: 1, c: [{ bb: 1, a: 2 }], b: 2, ab: 3 };
    const answer = await post(
      "/v1/episodes",
      episode({ payload: nested, metadata: { zz: 1, a: null }, provenance: { yy: 1, x: 2 } }),
    );
    const stored = answer.body as Record<string, unknown>;
    expect(JSON.stringify(stored.payload)).toBe(
      '{"a":{"y":2,"zz":1},"b":2,"c":[{"a":2,"bb":1}],"ab":3,"bb":1,"é":1}',
    );
    expect(JSON.stringify(stored.metadata)).toBe('{"a":null,"zz":1}');
    expect(JSON.stringify(stored.provenance)).toBe('{"x":2,"yy":1}');
  });

  it.each([
    ["a NUL in a nested string", { payload: { a: { b: ["ok", "x\u0000"] } } }],
    ["a NUL in a key", { payload: { "k\u0000": 1 } }],
    ["a lone high surrogate", { payload: { text: "a\uD800b" } }],
    ["a lone high surrogate at the end", { payload: { text: "a\uD800" } }],
    ["a lone low surrogate", { payload: { text: "a\uDC00b" } }],
    ["a NUL in metadata", { metadata: { note: "\u0000" } }],
    ["a NUL in the type", { type: "t\u0000" }],
  ])("answers %s with the 500 of Postgres", async (_name, fields) => {
    const { post, get, episode } = emulatorClient();
    expect((await post("/v1/episodes", episode(fields))).status).toBe(500);
    expect(
      (await post("/v1/episodes/batch", { episodes: [episode(), episode(fields)] })).status,
    ).toBe(500);
    expect(episodesOf((await get("/v1/timeline?subject_id=s")).body)).toEqual([]);
  });

  it("stores numbers, booleans, null and surrogate pairs", async () => {
    const { post, episode } = emulatorClient();
    const payload = { n: 1, t: true, z: null, list: [0, false], s: "😀 ok" };
    const answer = await post("/v1/episodes", episode({ payload }));
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ payload });
  });
});

describe("the Statewave v0.7.1 emulation: tenants (X-Tenant-ID)", () => {
  async function threeTenants() {
    const client = emulatorClient();
    await client.post("/v1/episodes", client.episode({ payload: { text: "from A" } }), {
      "X-Tenant-ID": "A",
    });
    await client.post("/v1/episodes", client.episode({ payload: { text: "from B" } }), {
      "X-Tenant-ID": "B",
    });
    await client.post("/v1/episodes", client.episode({ payload: { text: "no tenant" } }));
    return client;
  }
  const texts = (body: unknown) =>
    (body as { episodes: { payload: { text: string } }[] }).episodes.map((row) => row.payload.text);

  it("shows a tenant its own rows, and every row to a request without the header", async () => {
    const { get } = await threeTenants();
    expect(texts((await get("/v1/timeline?subject_id=s", { "X-Tenant-ID": "A" })).body)).toEqual([
      "from A",
    ]);
    expect(texts((await get("/v1/timeline?subject_id=s")).body)).toEqual([
      "from A",
      "from B",
      "no tenant",
    ]);
    expect((await get("/v1/subjects", { "X-Tenant-ID": "B" })).body).toEqual({
      subjects: [{ subject_id: "s", episode_count: 1, memory_count: 0 }],
      total: 1,
    });
  });

  it("compiles, searches and deletes within the tenant", async () => {
    const { post, get, send } = await threeTenants();
    const compiled = await post(
      "/v1/memories/compile",
      { subject_id: "s" },
      { "X-Tenant-ID": "A" },
    );
    expect(memoriesOf(compiled.body).map((row) => row.content)).toEqual(["from A"]);
    expect(
      memoriesOf((await get("/v1/memories/search?subject_id=s", { "X-Tenant-ID": "B" })).body),
    ).toEqual([]);
    expect(
      memoriesOf((await get("/v1/memories/search?subject_id=s", { "X-Tenant-ID": "A" })).body),
    ).toHaveLength(1);
    const deleted = await send("DELETE", "/v1/subjects/s", undefined, { "X-Tenant-ID": "A" });
    expect(deleted.body).toEqual({ subject_id: "s", episodes_deleted: 1, memories_deleted: 1 });
    expect(texts((await get("/v1/timeline?subject_id=s")).body)).toEqual(["from B", "no tenant"]);
  });

  it("supersedes across tenants, as v0.7.1 leaks", async () => {
    const { post, get, episode } = emulatorClient();
    const words = "one two three four five six seven eight nine";
    await post("/v1/episodes", episode({ payload: { text: words } }), { "X-Tenant-ID": "A" });
    await post("/v1/memories/compile", { subject_id: "s" }, { "X-Tenant-ID": "A" });
    await post("/v1/episodes", episode({ payload: { text: `${words} ten` } }), {
      "X-Tenant-ID": "B",
    });
    await post("/v1/memories/compile", { subject_id: "s" }, { "X-Tenant-ID": "B" });
    const own = memoriesOf((await get("/v1/timeline?subject_id=s", { "X-Tenant-ID": "A" })).body);
    expect(own.map((row) => row.status)).toEqual(["superseded"]);
  });
});

describe("the Statewave v0.7.1 emulation: compiling", () => {
  it("turns each uncompiled episode into memories once, in creation order", async () => {
    const { post, episode } = emulatorClient();
    await post("/v1/episodes", episode({ payload: { text: "first" } }));
    await post("/v1/episodes/batch", {
      episodes: [episode({ payload: { text: "second" } }), episode({ payload: { text: "third" } })],
    });
    await post("/v1/episodes", episode({ payload: {} }));
    await post("/v1/episodes", episode({ subject_id: "other", payload: { text: "elsewhere" } }));
    const compiled = await post("/v1/memories/compile", { subject_id: "s" });
    expect(compiled.status).toBe(200);
    expect(compiled.body).toMatchObject({ subject_id: "s", memories_created: 3 });
    expect(memoriesOf(compiled.body)[0]).toEqual({
      id: "id-6",
      subject_id: "s",
      kind: "episode_summary",
      content: "first",
      summary: "first",
      confidence: 0.8,
      valid_from: "1970-01-01T00:00:01Z",
      valid_to: null,
      source_episode_ids: ["id-1"],
      metadata: {},
      status: "active",
      created_at: "1970-01-01T00:00:01.000004Z",
      updated_at: "1970-01-01T00:00:01.000004Z",
    });
    expect(memoriesOf(compiled.body).map((row) => row.content)).toEqual([
      "first",
      "second",
      "third",
    ]);
    const again = await post("/v1/memories/compile", { subject_id: "s" });
    expect(again.body).toEqual({ subject_id: "s", memories_created: 0, memories: [] });
  });

  it("compiles at most 500 episodes per call, oldest first", async () => {
    const { post, episode } = emulatorClient();
    for (let batch = 0; batch < 5; batch++) {
      await post("/v1/episodes/batch", {
        episodes: Array.from({ length: 100 }, (_, index) =>
          episode({ payload: { text: `n${batch * 100 + index}` } }),
        ),
      });
    }
    await post("/v1/episodes", episode({ payload: { text: "n500" } }));
    const first = await post("/v1/memories/compile", { subject_id: "s" });
    expect(first.body).toMatchObject({ memories_created: 500 });
    const second = await post("/v1/memories/compile", { subject_id: "s" });
    expect(memoriesOf(second.body).map((row) => row.content)).toEqual(["n500"]);
  });

  it("answers a messages payload that is not a list with a 500 when synchronous", async () => {
    const { post, episode } = emulatorClient();
    await post("/v1/episodes", episode({ payload: { messages: "hi" } }));
    const answer = await post("/v1/memories/compile", { subject_id: "s" });
    expect(answer).toMatchObject({ status: 500, body: { error: { code: "internal_error" } } });
  });

  it.each([true, "true", "yes", 1])("runs a compile with async=%j as a job", async (flag) => {
    const { post } = emulatorClient();
    const answer = await post("/v1/memories/compile", { subject_id: "s", async: flag });
    expect(answer).toEqual({
      status: 202,
      requestId: "generated-request-id",
      body: { job_id: "job-1", status: "pending", subject_id: "s" },
    });
  });

  it.each([false, "false", "no", 0, 2])("compiles at once with async=%j", async (flag) => {
    const { post } = emulatorClient();
    const answer = await post("/v1/memories/compile", { subject_id: "s", async: flag });
    expect(answer.status).toBe(200);
  });

  it("completes a job with its memories, and fails one whose compile raises", async () => {
    const { post, get, episode } = emulatorClient({ generateJobId: () => "a job" });
    await post("/v1/episodes", episode());
    await post("/v1/memories/compile", { subject_id: "s", async: true });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const done = await get("/v1/memories/compile/a%20job");
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      job_id: "a job",
      status: "completed",
      subject_id: "s",
      memories_created: 1,
      memories: [{ kind: "episode_summary", content: "hello" }],
    });
    await post("/v1/episodes", episode({ payload: { messages: [1] } }));
    await post("/v1/memories/compile", { subject_id: "s", async: true });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const failed = await get("/v1/memories/compile/a%20job");
    expect(failed.body).toEqual({
      job_id: "a job",
      status: "failed",
      subject_id: "s",
      error: "HeuristicCompileError: a message is not an object",
    });
  });
});

describe("the Statewave v0.7.1 emulation: supersession by word overlap", () => {
  /** Compiles `texts` one after another, each in its own transaction. */
  async function compileInTurn(texts: string[]) {
    const client = emulatorClient();
    for (const text of texts) {
      await client.post("/v1/episodes", client.episode({ payload: { text } }));
      await client.post("/v1/memories/compile", { subject_id: "s" });
    }
    const timeline = memoriesOf((await client.get("/v1/timeline?subject_id=s")).body);
    return { ...client, timeline };
  }
  const statuses = (rows: MemoryWire[], kind: string) =>
    rows.filter((row) => row.kind === kind).map((row) => [row.content, row.status]);

  it("supersedes a summary at 0.8 overlap, not below", async () => {
    const { timeline } = await compileInTurn([
      "one two three four",
      "one two three four five",
      "alpha beta gamma delta epsilon",
      "alpha beta gamma delta zeta",
    ]);
    expect(statuses(timeline, "episode_summary")).toEqual([
      ["one two three four", "superseded"],
      ["one two three four five", "active"],
      ["alpha beta gamma delta epsilon", "active"],
      ["alpha beta gamma delta zeta", "active"],
    ]);
    const [older, newer] = timeline;
    expect(older?.valid_to).toBe(newer?.valid_from);
    expect(newer?.valid_to).toBeNull();
  });

  it("supersedes a profile fact at 0.6 overlap", async () => {
    const { timeline } = await compileInTurn(["I use alpha beta", "I use alpha gamma"]);
    expect(statuses(timeline, "profile_fact")).toEqual([
      ["I use alpha beta", "superseded"],
      ["I use alpha gamma", "active"],
    ]);
    expect(statuses(timeline, "episode_summary")).toEqual([
      ["I use alpha beta", "active"],
      ["I use alpha gamma", "active"],
    ]);
  });

  it("compares only the 500 oldest active memories of the subject", async () => {
    const client = emulatorClient();
    for (let batch = 0; batch < 5; batch++) {
      await client.post("/v1/episodes/batch", {
        episodes: Array.from({ length: 100 }, (_, index) =>
          client.episode({ payload: { text: `word${batch * 100 + index}` } }),
        ),
      });
    }
    await client.post("/v1/memories/compile", { subject_id: "s" });
    // The 501st memory would supersede the first, but lies past the 500 compared.
    await client.post("/v1/episodes", client.episode({ payload: { text: "word0" } }));
    await client.post("/v1/memories/compile", { subject_id: "s" });
    const found = memoriesOf(
      (await client.get("/v1/memories/search?subject_id=s&q=word0&limit=100")).body,
    );
    expect(found.filter((row) => row.content === "word0")).toHaveLength(2);
  });

  it("never supersedes across subjects", async () => {
    const client = emulatorClient();
    await client.post(
      "/v1/episodes",
      client.episode({ subject_id: "a", payload: { text: "one two three four" } }),
    );
    await client.post("/v1/memories/compile", { subject_id: "a" });
    await client.post(
      "/v1/episodes",
      client.episode({ subject_id: "b", payload: { text: "one two three four five" } }),
    );
    await client.post("/v1/memories/compile", { subject_id: "b" });
    const rows = memoriesOf((await client.get("/v1/timeline?subject_id=a")).body);
    expect(rows.map((row) => row.status)).toEqual(["active"]);
  });

  it("spends no transaction time on a compile with nothing to do", async () => {
    const { post, episode } = emulatorClient();
    expect((await post("/v1/memories/compile", { subject_id: "s" })).body).toEqual({
      subject_id: "s",
      memories_created: 0,
      memories: [],
    });
    const stored = await post("/v1/episodes", episode());
    expect((stored.body as EpisodeWire).created_at).toBe("1970-01-01T00:00:01Z");
  });

  it("never supersedes within one compile, and hides superseded rows from search", async () => {
    const client = emulatorClient();
    await client.post("/v1/episodes/batch", {
      episodes: [
        client.episode({ payload: { text: "same words here" } }),
        client.episode({ payload: { text: "same words here" } }),
      ],
    });
    await client.post("/v1/memories/compile", { subject_id: "s" });
    const rows = memoriesOf((await client.get("/v1/timeline?subject_id=s")).body);
    expect(rows.map((row) => row.status)).toEqual(["active", "active"]);
    await client.post("/v1/episodes", client.episode({ payload: { text: "same words here" } }));
    await client.post("/v1/memories/compile", { subject_id: "s" });
    const found = memoriesOf((await client.get("/v1/memories/search?subject_id=s")).body);
    expect(found.map((row) => row.id)).toEqual(["id-6"]);
  });
});

describe("the Statewave v0.7.1 emulation: search, timeline, subjects and delete", () => {
  async function compiledTexts(texts: string[]) {
    const client = emulatorClient();
    for (const text of texts) {
      await client.post("/v1/episodes", client.episode({ payload: { text } }));
    }
    await client.post("/v1/memories/compile", { subject_id: "s" });
    return client;
  }

  it("searches newest first, by kind and by case-insensitive substring", async () => {
    let clock = 1000;
    const client = emulatorClient({ now: () => clock });
    await client.post("/v1/episodes", client.episode({ payload: { text: "Old Apple" } }));
    await client.post("/v1/memories/compile", { subject_id: "s" });
    clock = 9000;
    await client.post(
      "/v1/episodes",
      client.episode({ payload: { text: "My name is Bob Stone" } }),
    );
    await client.post("/v1/memories/compile", { subject_id: "s" });
    const contents = async (query: string) =>
      memoriesOf((await client.get(`/v1/memories/search?subject_id=s${query}`)).body).map(
        (row) => row.content,
      );
    expect(await contents("")).toEqual([
      "My name is Bob Stone",
      "My name is Bob Stone",
      "Old Apple",
    ]);
    expect(await contents("&kind=profile_fact")).toEqual(["My name is Bob Stone"]);
    expect(await contents("&q=APPLE")).toEqual(["Old Apple"]);
    expect(await contents("&q=")).toHaveLength(3);
    expect(await contents("&limit=1")).toEqual(["My name is Bob Stone"]);
    expect(memoriesOf((await client.get("/v1/memories/search?subject_id=nobody")).body)).toEqual(
      [],
    );
  });

  it("returns 20 memories unless asked for more", async () => {
    const texts = Array.from({ length: 25 }, (_, index) => `text ${index}`);
    const { get } = await compiledTexts(texts);
    expect(memoriesOf((await get("/v1/memories/search?subject_id=s")).body)).toHaveLength(20);
    expect(memoriesOf((await get("/v1/memories/search?subject_id=s&limit=25")).body)).toHaveLength(
      25,
    );
  });

  it("keeps the timeline to the subject, oldest first, superseded memories included", async () => {
    const { get, post, episode } = await compiledTexts(["one two three four"]);
    await post("/v1/episodes", episode({ payload: { text: "one two three four five" } }));
    await post("/v1/episodes", episode({ subject_id: "other" }));
    await post("/v1/memories/compile", { subject_id: "s" });
    const timeline = (await get("/v1/timeline?subject_id=s")).body as {
      subject_id: string;
      episodes: EpisodeWire[];
      memories: MemoryWire[];
    };
    expect(timeline.subject_id).toBe("s");
    expect(timeline.episodes.map((row) => row.id)).toEqual(["id-1", "id-3"]);
    expect(timeline.memories.map((row) => [row.content, row.status])).toEqual([
      ["one two three four", "superseded"],
      ["one two three four five", "active"],
    ]);
  });

  it("lists subjects in order with counts, paged, hiding snapshot and bootstrap subjects", async () => {
    const { post, get, episode } = emulatorClient();
    const names = ["b", "a", ".snapshot/x", "_snapshot/y", ".bootstrap.tmp/z", "a.snapshot/w", "c"];
    await post("/v1/episodes/batch", {
      episodes: names.map((name) => episode({ subject_id: name })),
    });
    await post("/v1/episodes", episode({ subject_id: "a" }));
    await post("/v1/memories/compile", { subject_id: "a" });
    const subjects = (await get("/v1/subjects")).body as {
      subjects: { subject_id: string }[];
      total: number;
    };
    expect(subjects).toEqual({
      subjects: [
        { subject_id: "a", episode_count: 2, memory_count: 2 },
        { subject_id: "a.snapshot/w", episode_count: 1, memory_count: 0 },
        { subject_id: "b", episode_count: 1, memory_count: 0 },
        { subject_id: "c", episode_count: 1, memory_count: 0 },
      ],
      total: 4,
    });
    const page = await get("/v1/subjects?limit=2&offset=1");
    expect(page.body).toEqual({
      subjects: [
        { subject_id: "a.snapshot/w", episode_count: 1, memory_count: 0 },
        { subject_id: "b", episode_count: 1, memory_count: 0 },
      ],
      total: 2,
    });
  });

  it("lists 50 subjects unless asked for more", async () => {
    const { post, get, episode } = emulatorClient();
    const names = Array.from({ length: 51 }, (_, index) => `s${String(index).padStart(2, "0")}`);
    await post("/v1/episodes/batch", {
      episodes: names.map((name) => episode({ subject_id: name })),
    });
    expect((await get("/v1/subjects")).body).toMatchObject({ total: 50 });
    expect((await get("/v1/subjects?limit=51")).body).toMatchObject({ total: 51 });
  });

  it("deletes one subject's episodes and memories, by its URL-encoded id", async () => {
    const { post, get, send, episode } = emulatorClient();
    await post("/v1/episodes/batch", {
      episodes: [episode({ subject_id: "a b" }), episode({ subject_id: "a b" }), episode()],
    });
    await post("/v1/memories/compile", { subject_id: "a b" });
    const deleted = await send("DELETE", "/v1/subjects/a%20b");
    expect(deleted).toEqual({
      status: 200,
      requestId: "generated-request-id",
      body: { subject_id: "a b", episodes_deleted: 2, memories_deleted: 2 },
    });
    expect((await get("/v1/subjects")).body).toEqual({
      subjects: [{ subject_id: "s", episode_count: 1, memory_count: 0 }],
      total: 1,
    });
    expect((await send("DELETE", "/v1/subjects/a%20b")).body).toMatchObject({
      episodes_deleted: 0,
      memories_deleted: 0,
    });
  });
});
