import { afterAll, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
// What a user of the official SDK imports, from shared-ctx instead of "@statewavedev/sdk".
import {
  type BatchCreateResult,
  type CompileResult,
  type ContextBundle,
  type DeleteResult,
  type Episode,
  type ListSubjectsResult,
  type SearchResult,
  StatewaveAPIError,
  StatewaveClient,
  StatewaveConnectionError,
  type Timeline,
} from "../../../src/index.js";
import { startStatewaveEmulator } from "../../../src/server/compat/listen-statewave-emulator.js";
import { startServer } from "../../../src/server/listen.js";

/**
 * The official SDK's README and JSDoc examples (`@statewavedev/sdk` v1.4, camelCase), unchanged
 * but for the import: every call shape, every result field a script reads. Returns what it saw.
 */
async function sdkReadmeScript(baseUrl: string, subjectId: string) {
  const sw = new StatewaveClient(baseUrl);
  const swAuth = new StatewaveClient({ baseUrl, apiKey: "your-key", tenantId: "acme" });
  void swAuth;

  const episode: Episode = await sw.createEpisode({
    subjectId,
    source: "support-chat",
    type: "conversation",
    payload: {
      messages: [
        { role: "user", content: "My name is Alice and I work at Globex." },
        { role: "assistant", content: "Welcome Alice!" },
      ],
    },
  });
  const result: CompileResult = await sw.compileMemories(subjectId);
  const ctx: ContextBundle = await sw.getContext({
    subjectId,
    task: "Help with billing",
    maxTokens: 300,
  });
  const batch: BatchCreateResult = await sw.createEpisodesBatch([
    { subjectId, source: "crm", type: "note", payload: { text: "Prefers email" } },
    { subjectId, source: "crm", type: "note", payload: { text: "Enterprise plan" } },
  ]);
  const facts: SearchResult = await sw.searchMemories({ subjectId, kind: "profile_fact" });
  const results: SearchResult = await sw.searchMemories({
    subjectId,
    query: "billing",
    semantic: true,
  });
  const subjects: ListSubjectsResult = await sw.listSubjects();
  const { subjects: page } = await sw.listSubjects({ limit: 50 });
  const timeline: Timeline = await sw.getTimeline(subjectId);
  const recent = await sw.getTimeline(subjectId, { limit: 20, newestFirst: true });
  const text: string = await sw.getContextString({
    subjectId,
    task: "Help with billing",
    maxTokens: 2000,
  });
  const job = await sw.compileMemoriesWait(subjectId, { pollInterval: 20, timeout: 30_000 });
  const status = await sw.getCompileStatus(job.jobId);

  let apiError: unknown;
  try {
    await sw.compileMemories("");
  } catch (error) {
    if (error instanceof StatewaveAPIError) apiError = error;
  }
  let connectionError: unknown;
  try {
    await new StatewaveClient({ baseUrl: "http://127.0.0.1:9", retry: false }).compileMemories(
      subjectId,
    );
  } catch (error) {
    if (error instanceof StatewaveConnectionError) connectionError = error;
  }
  const deleted: DeleteResult = await sw.deleteSubject(subjectId);
  return {
    episode,
    result,
    ctx,
    batch,
    facts,
    results,
    subjects,
    page,
    timeline,
    recent,
    text,
    job,
    status,
    apiError,
    connectionError,
    deleted,
  };
}

function expectSdkShapes(seen: Awaited<ReturnType<typeof sdkReadmeScript>>, subjectId: string) {
  expect(seen.episode).toMatchObject({ subjectId, source: "support-chat", type: "conversation" });
  expect(typeof seen.episode.id).toBe("string");
  expect(typeof seen.episode.createdAt).toBe("string");
  expect(seen.result).toMatchObject({ subjectId, memoriesCreated: expect.any(Number) });
  expect(seen.result.memoriesCreated).toBeGreaterThan(0);
  expect(seen.ctx.assembledContext).toContain("Help with billing");
  expect(seen.ctx.provenance).toHaveProperty("summary_ids");
  expect(typeof seen.ctx.tokenEstimate).toBe("number");
  expect(seen.batch.episodesCreated).toBe(2);
  expect(seen.batch.episodes).toHaveLength(2);
  expect(Array.isArray(seen.facts.memories)).toBe(true);
  expect(seen.facts.memories.every((memory) => memory.kind === "profile_fact")).toBe(true);
  expect(Array.isArray(seen.results.memories)).toBe(true);
  expect(seen.subjects.subjects.map((subject) => subject.subjectId)).toContain(subjectId);
  const mine = seen.page.find((subject) => subject.subjectId === subjectId);
  expect(mine?.episodeCount).toBe(3);
  expect(seen.timeline.episodes).toHaveLength(3);
  expect(seen.timeline.memories.length).toBeGreaterThan(0);
  expect(seen.recent.episodes.length).toBeGreaterThan(0);
  expect(seen.text).toContain("## Task");
  expect(seen.job.status).toBe("completed");
  expect(seen.status).toMatchObject({ jobId: seen.job.jobId, status: "completed", subjectId });
  expect(seen.apiError).toMatchObject({ statusCode: 422, code: "validation_error" });
  expect((seen.apiError as StatewaveAPIError).requestId).toMatch(/^[0-9a-z]+$/);
  expect((seen.apiError as StatewaveAPIError).details).toEqual([
    expect.objectContaining({ type: "string_too_short", loc: ["body", "subject_id"] }),
  ]);
  expect((seen.apiError as Error).message).toBe(
    "[422] validation_error: Request validation failed",
  );
  expect(seen.connectionError).toBeInstanceOf(StatewaveConnectionError);
  expect(seen.deleted).toEqual({
    subjectId,
    episodesDeleted: 3,
    memoriesDeleted: expect.any(Number),
  });
}

describe("a script in the official SDK's documented call shapes", () => {
  const closing: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of closing) await close();
  });

  it("runs unchanged against shared-ctx serve", async () => {
    const server = await startServer({ store: new EmbeddedStore({ path: ":memory:" }), port: 0 });
    closing.push(() => server.close());
    expectSdkShapes(await sdkReadmeScript(server.url, "user-42"), "user-42");
  });

  it("runs unchanged against a Statewave v0.7.1 server (emulated)", async () => {
    const server = await startStatewaveEmulator();
    closing.push(() => server.close());
    const seen = await sdkReadmeScript(server.url, "user-42");
    expectSdkShapes(seen, "user-42");
    // v0.7.1's heuristic compiler makes profile facts of "My name is …" and "I work at …".
    expect(seen.facts.memories.map((memory) => memory.content).sort()).toEqual([
      "I work at Globex",
      "My name is Alice",
    ]);
  });
});
