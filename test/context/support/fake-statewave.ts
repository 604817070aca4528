import type { StatewaveClientOptions } from "../../../src/context/statewave/statewave-client.js";
import { StatewaveClient } from "../../../src/context/statewave/statewave-client.js";

/** One request as the server would see it. */
export interface Sent {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

/** A tiny in-memory Statewave behind an injected `fetch`, recording every request. */
export function fakeStatewave() {
  const sent: Sent[] = [];
  const episodes: Record<string, unknown>[] = [];
  const memories: Record<string, unknown>[] = [];
  /** While set, timeline reads wait for it (to hold a watch's baseline). */
  let timelineGate: Promise<void> | undefined;
  /** Answers of `GET /v1/memories/compile/:id`, in order (the last repeats). */
  const jobStatuses: string[] = ["completed"];
  let statusReads = 0;

  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "Content-Type": "application/json" },
    });
  const compiledMemory = () => {
    const memory = {
      id: `m-${memories.length + 1}`,
      subject_id: "s",
      kind: "episode_summary",
      content: "compiled",
      summary: "compiled",
      confidence: 0.8,
      valid_from: "2026-11-30T14:04:41Z",
      valid_to: null,
      source_episode_ids: [],
      metadata: {},
      status: "active",
      created_at: "2026-11-30T14:04:42Z",
      updated_at: "2026-11-30T14:04:42Z",
    };
    memories.push(memory);
    return memory;
  };

  const answer = async (url: URL, init: RequestInit): Promise<Response> => {
    const method = init.method ?? "GET";
    const body = typeof init.body === "string" ? JSON.parse(init.body) : undefined;
    sent.push({
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...(init.headers as Record<string, string>) },
      body,
    });
    if (method === "GET" && url.pathname === "/v1/timeline") {
      await timelineGate;
      return json(200, { subject_id: url.searchParams.get("subject_id"), episodes, memories });
    }
    if (method === "POST" && url.pathname === "/v1/episodes") {
      const episode = {
        id: `e-${episodes.length + 1}`,
        ...body,
        created_at: "2026-11-30T14:04:41Z",
      };
      episodes.push(episode);
      return json(201, episode);
    }
    if (method === "POST" && url.pathname === "/v1/memories/compile") {
      if (body.async) return json(202, { job_id: "job-1", status: "pending", subject_id: "s" });
      const memory = compiledMemory();
      return json(200, { subject_id: "s", memories_created: 1, memories: [memory] });
    }
    if (method === "GET" && url.pathname === "/v1/memories/compile/job-1") {
      const status = jobStatuses[Math.min(statusReads++, jobStatuses.length - 1)] ?? "completed";
      const done =
        status === "completed" ? { memories_created: 1, memories: [compiledMemory()] } : {};
      return json(200, { job_id: "job-1", status, subject_id: "s", ...done });
    }
    if (method === "GET" && url.pathname === "/v1/subjects") {
      return json(200, { subjects: [], total: 0 });
    }
    return json(404, { error: { code: "not_found", message: "no route" } });
  };

  const fetchDouble = (input: string | URL | Request, init: RequestInit = {}) => {
    const signal = init.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Response>((resolve, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      answer(new URL(String(input)), init).then(resolve, reject);
    });
  };

  return {
    sent,
    jobStatuses,
    fetch: fetchDouble as typeof fetch,
    holdTimeline(): () => void {
      let release: () => void = () => undefined;
      timelineGate = new Promise<void>((resolve) => {
        release = () => {
          timelineGate = undefined;
          resolve();
        };
      });
      return () => release();
    },
  };
}

/** Lets pending promise chains and the fake server's answers run. */
export async function settle(): Promise<void> {
  for (let round = 0; round < 20; round++) await new Promise((resolve) => setImmediate(resolve));
}

/** A client of `server` that polls only when a write asks for it, with no real delays. */
export function clientOf(
  server: ReturnType<typeof fakeStatewave>,
  options: StatewaveClientOptions = {},
) {
  return new StatewaveClient({
    baseUrl: "http://statewave.test",
    fetch: server.fetch,
    // Polls only when a write asks for it: the tests see exactly the reads the client makes.
    pollIntervalMs: 1_000_000,
    delay: async () => undefined,
    ...options,
  });
}

/** An episode the client writes in the tests. */
export const note = { subjectId: "s", source: "agent", type: "note", payload: { text: "hi" } };

/** How many timeline reads the client sent. */
export function timelineReads(sent: Sent[]): number {
  return sent.filter((request) => request.path === "/v1/timeline").length;
}
