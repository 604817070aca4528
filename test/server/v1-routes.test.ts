import { describe, expect, it } from "vitest";
import type { ContextStore, Episode, Memory } from "../../src/context/context-store.js";
import { createApp } from "../../src/server/app.js";

const episode: Episode = {
  id: "e1",
  subjectId: "s",
  source: "a",
  type: "t",
  payload: {},
  metadata: {},
  provenance: {},
  sessionId: null,
  createdAt: "2026-01-01T00:00:00Z",
};

function memory(kind: string, createdAt: string): Memory {
  return {
    id: `${kind}@${createdAt}`,
    subjectId: "s",
    kind: kind as Memory["kind"],
    content: "c",
    summary: "c",
    confidence: 1,
    validFrom: createdAt,
    validTo: null,
    sourceEpisodeIds: [],
    metadata: {},
    status: "active",
    createdAt,
    updatedAt: createdAt,
  };
}

/** A store that records every call and answers from fixed data. */
function recordingStore(options: { readinessError?: unknown } = {}) {
  const calls: Array<[string, ...unknown[]]> = [];
  const byKind: Record<string, Memory[]> = {
    episode_summary: [memory("episode_summary", "2026-01-01T00:00:01Z")],
    architectural_decision: [memory("architectural_decision", "2026-01-01T00:00:04Z")],
    implementation_note: [memory("implementation_note", "2026-01-01T00:00:02Z")],
    review_finding: [memory("review_finding", "2026-01-01T00:00:03Z")],
  };
  const view: Partial<ContextStore> = {
    createEpisode: async (input) => {
      calls.push(["createEpisode", input]);
      return episode;
    },
    createEpisodesBatch: async (inputs) => {
      calls.push(["createEpisodesBatch", inputs]);
      return { episodesCreated: inputs.length, episodes: inputs.map(() => episode) };
    },
    compileMemories: async (subjectId) => {
      calls.push(["compileMemories", subjectId]);
      return { subjectId, memoriesCreated: 0, memories: [] };
    },
    compileMemoriesAsync: async (subjectId) => {
      calls.push(["compileMemoriesAsync", subjectId]);
      return { jobId: "j1", status: "pending", subjectId, memoriesCreated: 5 };
    },
    getCompileStatus: async (jobId) => {
      calls.push(["getCompileStatus", jobId]);
      return { jobId, status: "running", subjectId: "s" };
    },
    searchMemories: async (subjectId, search) => {
      calls.push(["searchMemories", subjectId, search]);
      return search?.kind ? (byKind[search.kind] ?? []) : Object.values(byKind).flat();
    },
    getContext: async (subjectId, task, context) => {
      calls.push(["getContext", subjectId, task, context]);
      return {
        subjectId,
        task,
        facts: [],
        episodes: [],
        procedures: [],
        provenance: { fact_ids: [], summary_ids: [], procedure_ids: [], episode_ids: [] },
        assembledContext: "",
        tokenEstimate: 0,
        sessions: [],
      };
    },
    getTimeline: async (subjectId, timeline) => {
      calls.push(["getTimeline", subjectId, timeline]);
      return { subjectId, episodes: [], memories: [] };
    },
    listSubjects: async (list) => {
      calls.push(["listSubjects", list]);
      if (options.readinessError !== undefined) throw options.readinessError;
      return { subjects: [], total: 0 };
    },
    deleteSubject: async (subjectId) => {
      calls.push(["deleteSubject", subjectId]);
      return { subjectId, episodesDeleted: 1, memoriesDeleted: 2 };
    },
  };
  const app = createApp({
    store: { forTenant: () => view as ContextStore },
    generateRequestId: () => "req",
  });
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await app.fetch(
      new Request(`http://test${path}`, {
        method,
        headers: { "Content-Type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return {
      status: response.status,
      allow: response.headers.get("allow"),
      body: (await response.json()) as unknown,
    };
  };
  return { calls, send };
}

describe("the /v1 routes", () => {
  it.each([
    ["POST", "/healthz", "GET"],
    ["PUT", "/health", "GET"],
    ["POST", "/readyz", "GET"],
    ["DELETE", "/ready", "GET"],
    ["GET", "/v1/episodes", "POST"],
    ["GET", "/v1/episodes/batch", "POST"],
    ["GET", "/v1/memories/compile", "POST"],
    ["POST", "/v1/memories/compile/j1", "GET"],
    ["POST", "/v1/memories/search", "GET"],
    ["GET", "/v1/context", "POST"],
    ["PATCH", "/v1/timeline", "GET"],
    ["DELETE", "/v1/subjects", "GET"],
    ["GET", "/v1/subjects/a/b", "DELETE"],
  ])("answers %s %s with 405 and Allow: %s", async (method, path, allowed) => {
    const { send, calls } = recordingStore();
    expect(await send(method, path)).toEqual({
      status: 405,
      allow: allowed,
      body: { error: { code: "http_error", message: "Method Not Allowed", request_id: "req" } },
    });
    expect(calls).toEqual([]);
  });

  it.each(["/readyz", "/ready"])("reports %s ready after probing the store", async (path) => {
    const { send, calls } = recordingStore();
    expect(await send("GET", path)).toEqual({
      status: 200,
      allow: null,
      body: { status: "ready", checks: [{ name: "database", status: "ok" }] },
    });
    expect(calls).toEqual([["listSubjects", { limit: 1 }]]);
  });

  it.each([new Error("database is locked"), "plain failure"])(
    "reports not_ready with 503 and no reason (no key was presented) when the probe throws %j",
    async (error) => {
      const { send } = recordingStore({ readinessError: error });
      expect(await send("GET", "/readyz")).toEqual({
        status: 503,
        allow: null,
        body: { status: "not_ready", checks: [{ name: "database", status: "fail" }] },
      });
    },
  );

  it("stores an episode with every field mapped, and a batch in order", async () => {
    const { send, calls } = recordingStore();
    const body = {
      subject_id: "s",
      source: "a",
      type: "t",
      payload: { p: 1 },
      metadata: { m: 2 },
      provenance: { v: 3 },
      session_id: "sess",
      ignored: true,
    };
    expect((await send("POST", "/v1/episodes", body)).status).toBe(201);
    const input = {
      subjectId: "s",
      source: "a",
      type: "t",
      payload: { p: 1 },
      metadata: { m: 2 },
      provenance: { v: 3 },
      sessionId: "sess",
      idempotencyKey: null,
    };
    expect(calls).toEqual([["createEpisode", input]]);
    const batch = await send("POST", "/v1/episodes/batch", { episodes: [body, body] });
    expect(batch.status).toBe(201);
    expect(batch.body).toMatchObject({
      episodes_created: 2,
      episodes: [{ id: "e1" }, { id: "e1" }],
    });
    expect(calls[1]).toEqual(["createEpisodesBatch", [input, input]]);
  });

  it("compiles at once by default, as a 202 job with async, and reports a job by id", async () => {
    const { send, calls } = recordingStore();
    expect(await send("POST", "/v1/memories/compile", { subject_id: "s" })).toEqual({
      status: 200,
      allow: null,
      body: { subject_id: "s", memories_created: 0, memories: [] },
    });
    expect(await send("POST", "/v1/memories/compile", { subject_id: "s", async: "true" })).toEqual({
      status: 202,
      allow: null,
      body: { job_id: "j1", status: "pending", subject_id: "s" },
    });
    expect(await send("GET", "/v1/memories/compile/a%20job")).toEqual({
      status: 200,
      allow: null,
      body: { job_id: "a job", status: "running", subject_id: "s" },
    });
    expect(calls).toEqual([
      ["compileMemories", "s"],
      ["compileMemoriesAsync", "s"],
      ["getCompileStatus", "a job"],
    ]);
  });

  it("refuses a job id over 10,000 characters in the path", async () => {
    const { send } = recordingStore();
    const answer = await send("GET", `/v1/memories/compile/${"j".repeat(10_001)}`);
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({
      error: { details: [{ type: "string_too_long", loc: ["path", "job_id"] }] },
    });
  });

  it("searches with only the options given", async () => {
    const { send, calls } = recordingStore();
    await send("GET", "/v1/memories/search?subject_id=s");
    await send(
      "GET",
      "/v1/memories/search?subject_id=s&kind=profile_fact&q=x&semantic=yes&limit=3",
    );
    expect(calls).toEqual([
      ["searchMemories", "s", { semantic: false, limit: 20 }],
      ["searchMemories", "s", { kind: "profile_fact", q: "x", semantic: true, limit: 3 }],
    ]);
  });

  it("finds every summary-like kind for kind=episode_summary, newest first, up to limit", async () => {
    const { send, calls } = recordingStore();
    const answer = await send(
      "GET",
      "/v1/memories/search?subject_id=s&kind=episode_summary&limit=3",
    );
    const memories = (answer.body as { memories: Array<{ kind: string; metadata: unknown }> })
      .memories;
    expect(memories.map((row) => row.metadata)).toEqual([
      { kind: "architectural_decision" },
      { kind: "review_finding" },
      { kind: "implementation_note" },
    ]);
    expect(memories.every((row) => row.kind === "episode_summary")).toBe(true);
    expect(calls.map((call) => (call[2] as { kind: string }).kind)).toEqual([
      "episode_summary",
      "architectural_decision",
      "implementation_note",
      "review_finding",
    ]);
  });

  it("answers an empty subject_id in search and timeline with nothing, without asking the store", async () => {
    const { send, calls } = recordingStore();
    expect((await send("GET", "/v1/memories/search?subject_id=")).body).toEqual({ memories: [] });
    expect((await send("GET", "/v1/timeline?subject_id=")).body).toEqual({
      subject_id: "",
      episodes: [],
      memories: [],
    });
    expect(calls).toEqual([]);
  });

  it("passes context options only when given", async () => {
    const { send, calls } = recordingStore();
    await send("POST", "/v1/context", { subject_id: "s", task: "t" });
    await send("POST", "/v1/context", {
      subject_id: "s",
      task: "t",
      max_tokens: "50",
      session_id: "x",
    });
    expect(calls).toEqual([
      ["getContext", "s", "t", {}],
      ["getContext", "s", "t", { maxTokens: 50, sessionId: "x" }],
    ]);
  });

  it("pages the timeline and the subjects", async () => {
    const { send, calls } = recordingStore();
    expect((await send("GET", "/v1/timeline?subject_id=s")).body).toEqual({
      subject_id: "s",
      episodes: [],
      memories: [],
    });
    await send("GET", "/v1/timeline?subject_id=s&limit=5&offset=2");
    expect((await send("GET", "/v1/subjects?limit=7&offset=1")).body).toEqual({
      subjects: [],
      total: 0,
    });
    await send("GET", "/v1/subjects");
    // The store is read in pages (bounded-timeline.ts): the first asks for 10 rows at most, and
    // an empty one ends the read.
    expect(calls).toEqual([
      ["getTimeline", "s", { limit: 10, offset: 0 }],
      ["getTimeline", "s", { limit: 5, offset: 2 }],
      ["listSubjects", { limit: 7, offset: 1 }],
      ["listSubjects", { limit: 50, offset: 0 }],
    ]);
  });

  it("deletes a subject by its path id, slashes included, and refuses one over 256 characters", async () => {
    const { send, calls } = recordingStore();
    expect(await send("DELETE", "/v1/subjects/team/a%20b")).toEqual({
      status: 200,
      allow: null,
      body: { subject_id: "team/a b", episodes_deleted: 1, memories_deleted: 2 },
    });
    expect(calls).toEqual([["deleteSubject", "team/a b"]]);
    const tooLong = await send("DELETE", `/v1/subjects/${"x".repeat(257)}`);
    expect(tooLong.status).toBe(422);
    expect(tooLong.body).toMatchObject({
      error: { details: [{ type: "string_too_long", loc: ["path", "subject_id"] }] },
    });
  });
});
