import { StatewaveClient } from "../../../src/context/statewave/statewave-client.js";
import { EpisodeLog } from "../../../src/context/statewave/statewave-episode-log.js";
import { createStatewaveEmulator } from "../../../src/server/compat/statewave-v0-7-1.js";

/**
 * How the server's `GET /v1/timeline` treats `limit`/`offset`:
 * - `capped`: Statewave v0.7.1 (emulated) as it is, the oldest 100 whatever is asked;
 * - `paged`: honours them (`shared-ctx serve`), without saying whether more exist;
 * - `paged-with-has-more`: honours them and answers `episodes_has_more` (Statewave v1.x);
 * - `uncapped`: ignores them and answers every episode.
 */
export type TimelinePaging = "capped" | "paged" | "paged-with-has-more" | "uncapped";

/** A Statewave-speaking server in memory that writes down every request that reaches it. */
export interface RecordingStatewave {
  /** Each request that reached the server, e.g. `GET run limit=1`, `POST batch run x45`. */
  readonly requests: string[];
  /** A `fetch` that, as a real one, sends nothing for an aborted signal. */
  readonly fetch: typeof fetch;
  /** Calls `listener` with each request line once the server has answered it. */
  onAnswered(listener: (line: string) => void): void;
  /** A client of this server that does not retry. */
  client(): StatewaveClient;
  /** An episode log over a new client, segment copies named `copy-1`, `copy-2`, … */
  log(): EpisodeLog;
}

interface WireEpisode {
  subject_id: string;
}

function requestLine(method: string, url: URL, body: unknown): string {
  if (method === "GET" && url.pathname === "/v1/timeline") {
    const subject = url.searchParams.get("subject_id");
    const paging = ["limit", "offset"]
      .filter((name) => url.searchParams.has(name))
      .map((name) => ` ${name}=${url.searchParams.get(name)}`);
    return `GET ${subject}${paging.join("")}`;
  }
  if (method === "POST" && url.pathname === "/v1/episodes") {
    return `POST one ${(body as WireEpisode).subject_id}`;
  }
  if (method === "POST" && url.pathname === "/v1/episodes/batch") {
    const episodes = (body as { episodes: WireEpisode[] }).episodes;
    const subjects = [...new Set(episodes.map((episode) => episode.subject_id))];
    return `POST batch ${subjects.join(",")} x${episodes.length}`;
  }
  return `${method} ${url.pathname}`;
}

/** Starts a server whose timeline pages as `paging` says. */
export function recordingStatewave(paging: TimelinePaging = "capped"): RecordingStatewave {
  const emulator = createStatewaveEmulator();
  const requests: string[] = [];
  const listeners: ((line: string) => void)[] = [];
  /** Every episode created, in creation order, as the emulator answered it. */
  const created: WireEpisode[] = [];

  const recordingFetch: typeof fetch = async (input, init) => {
    if (init?.signal?.aborted) throw init.signal.reason;
    const url = new URL(String(input));
    const method = init?.method ?? "GET";
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
    const line = requestLine(method, url, body);
    requests.push(line);
    let response = await emulator.clientFetch(input, init);
    if (method === "POST" && response.ok) {
      const answer = (await response.clone().json()) as WireEpisode & { episodes: WireEpisode[] };
      created.push(...(url.pathname.endsWith("/batch") ? answer.episodes : [answer]));
    }
    if (method === "GET" && url.pathname === "/v1/timeline" && paging !== "capped") {
      const answer = (await response.json()) as WireEpisode;
      const all = created.filter((episode) => episode.subject_id === answer.subject_id);
      const offset = Number(url.searchParams.get("offset") ?? 0);
      const limit = Number(url.searchParams.get("limit") ?? all.length);
      const page = paging === "uncapped" ? all : all.slice(offset, offset + limit);
      response = Response.json({
        ...answer,
        episodes: page,
        ...(paging === "paged-with-has-more"
          ? { episodes_has_more: offset + page.length < all.length }
          : {}),
      });
    }
    for (const listener of listeners) listener(line);
    return response;
  };

  const client = () => new StatewaveClient({ fetch: recordingFetch, maxRetries: 0 });
  return {
    requests,
    fetch: recordingFetch,
    onAnswered: (listener) => listeners.push(listener),
    client,
    log: () => {
      let copies = 0;
      return new EpisodeLog({ client: client(), generateId: () => `copy-${++copies}` });
    },
  };
}
