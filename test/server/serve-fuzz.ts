import { Agent, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { type RunningServer, startServer } from "../../src/server/listen.js";
import { objectMemberNames } from "../support/fixtures/object-member-names.js";

/** A store `serve` can run on, as the fuzz opens it. */
export interface FuzzedStore {
  forTenant(tenantId: string | null): ContextStore;
  close(): Promise<void>;
}

/**
 * A seeded, bounded fuzz of `serve` over loopback HTTP: thousands of mutated requests across
 * every `/v1` route, then the promises that must hold whatever was sent: no 5xx, no internal
 * error logged, every acknowledged write still there exactly once, every subject still compiles,
 * and health still OK. Failures print the seed and the request, so a run can be replayed.
 * One harness for every store (`describeServeFuzz`): a second backend passes the same fuzz.
 */

const seed = Number(process.env.FUZZ_SEED ?? 1111);
const requestCount = Number(process.env.FUZZ_REQUESTS ?? 5000);
const concurrency = 4;

/** mulberry32: the same sequence for the same seed. */
function seededRandom(start: number): () => number {
  let state = start >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const random = seededRandom(seed);
const chance = (probability: number) => random() < probability;
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const integer = (max: number) => Math.floor(random() * max);

const tenants = [undefined, "team-a", "__proto__", "constructor", "😀", "t".repeat(5000)];
const subjects = ["run-1", "run-2", "😀 run", "constructor", "__proto__", "a/b", "x y"];
const episodeTypes = [
  "architectural_decision",
  "decision",
  "implementation_note",
  "note",
  "review_finding",
  "message",
  "state_update",
  "procedure",
  ...objectMemberNames,
];

/** Literals spliced into the JSON text: the ones JSON.parse would silently change, and fine ones. */
const numberLiterals = [
  "0",
  "-0",
  "-0.0",
  "1e400",
  "-1e400",
  "1e-400",
  "9007199254740993",
  "123456789012345678901234567890",
  "9007199254740991",
  "0.1",
  "1e21",
  "5e-324",
  "-12.5",
];

function weirdString(): string {
  return pick([
    "",
    " ",
    "x".repeat(257),
    "😀".repeat(129),
    "😀".repeat(257),
    "\ud800",
    "\u0000",
    "line\nbreak",
    "%00",
    "../../etc/passwd",
    ...objectMemberNames,
  ]);
}

function weirdValue(depth = 0): unknown {
  switch (integer(depth > 2 ? 6 : 9)) {
    case 0:
      return null;
    case 1:
      return weirdString();
    case 2:
      return pick([true, false, 0, -1, 1.5, 2 ** 31, Number.MAX_SAFE_INTEGER]);
    case 3:
      return [];
    case 4:
      return {};
    case 5:
      return "__NUMBER__";
    case 6:
      return Array.from({ length: integer(4) }, () => weirdValue(depth + 1));
    case 7:
      return Object.fromEntries(
        Array.from({ length: integer(4) }, () => [
          chance(0.3) ? pick(objectMemberNames) : `k${integer(5)}`,
          weirdValue(depth + 1),
        ]),
      );
    default:
      return { content: weirdString(), target: pick(["auth", "db", "__proto__"]) };
  }
}

function nested(depth: number, open: string, close: string, inner = "1"): string {
  return `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
}

type Route =
  | "episode"
  | "batch"
  | "compile"
  | "job"
  | "search"
  | "context"
  | "timeline"
  | "exact"
  | "subjects"
  | "delete"
  | "health"
  | "other";

interface FuzzRequest {
  route: Route;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** The tenant and subject a DELETE may have emptied (their earlier writes are not checked). */
  deletes?: { tenant: string | undefined; subject: string };
  /** Cut the connection after sending part of the body. */
  abort?: boolean;
}

function validEpisode(subject: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    subject_id: subject,
    source: pick(["agent-a", "agent-b", "😀"]),
    type: pick(episodeTypes),
    payload: chance(0.5)
      ? {
          content: pick([`note ${integer(1000)}`, "nul \u0000 inside", `w${"x".repeat(2100)}`]),
          target: pick(["auth", "db", "cache", "a\u0000b"]),
        }
      : { messages: [{ role: "user", content: "hi" }], n: "__NUMBER__" },
  };
  if (chance(0.3)) body.metadata = { tool: "grep" };
  if (chance(0.3)) body.provenance = { read_memory_ids: ["m1", 5, null] };
  if (chance(0.2)) body.session_id = pick(["s1", null, "x".repeat(300)]);
  return body;
}

/** Changes a JSON object in place, 0..3 times. */
function mutateObject(body: Record<string, unknown>): void {
  for (let count = integer(4); count > 0; count -= 1) {
    const keys = Object.keys(body);
    switch (integer(5)) {
      case 0:
        if (keys.length > 0) delete body[pick(keys)];
        break;
      case 1:
        if (keys.length > 0) body[pick(keys)] = weirdValue();
        break;
      case 2:
        Object.defineProperty(body, pick(objectMemberNames), {
          value: weirdValue(),
          enumerable: true,
          configurable: true,
          writable: true,
        });
        break;
      case 3:
        body.payload = weirdValue();
        break;
      default:
        body.type = pick(objectMemberNames);
    }
  }
}

/** Text-level damage: the kind no object can express. */
function mutateText(text: string): Buffer {
  const withNumbers = text.replaceAll('"__NUMBER__"', () => pick(numberLiterals));
  if (!chance(0.25)) return Buffer.from(withNumbers);
  switch (integer(9)) {
    case 0:
      return Buffer.from(withNumbers.slice(0, integer(withNumbers.length)));
    case 1:
      return Buffer.concat([Buffer.from(withNumbers), Buffer.from([0xff, 0xfe])]);
    case 2:
      return Buffer.from(`\ufeff${withNumbers}`);
    case 3:
      return Buffer.from(`[${withNumbers}]`);
    case 4:
      return Buffer.from(nested(300 + integer(5000), "[", "]"));
    case 5:
      return Buffer.from(`{"payload":${nested(200 + integer(400), '{"a":', "}")},"x":1}`);
    case 6:
      return Buffer.from(pick(["", "null", "true", "1e400", '"str"', "{}", "[]", "{", "]"]));
    case 7: {
      const position = integer(withNumbers.length + 1);
      const junk = pick(['"', "\\", "}", ",", "\u0000", "😀", "\ud800"]);
      return Buffer.from(withNumbers.slice(0, position) + junk + withNumbers.slice(position));
    }
    default:
      return Buffer.from(
        withNumbers.replace(
          /"subject_id":"[^"]*"/,
          `"subject_id":${JSON.stringify(weirdString())}`,
        ),
      );
  }
}

/** Percent-encoding that also takes a lone surrogate (sent as its raw, invalid UTF-8 bytes). */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return "%ED%A0%80";
  }
}

function query(parameters: Record<string, string>): string {
  const entries = Object.entries(parameters);
  if (chance(0.2))
    entries.push([
      pick([...objectMemberNames, "limit", "subject_id"]),
      pick(["1", "", "-1", "1e400", "%FF"]),
    ]);
  return entries
    .map(([key, value]) => `${encode(key)}=${value === "%FF" ? value : encode(value)}`)
    .join("&");
}

function makeRequest(index: number, jobIds: readonly string[]): FuzzRequest {
  const tenant = pick(tenants);
  const subject = chance(0.9) ? pick(subjects) : weirdString();
  const headers: Record<string, string> = { "content-type": "application/json" };
  // The server takes the header as it is: the tenant id is the encoded text.
  const tenantHeader = tenant === undefined ? undefined : encode(tenant);
  if (tenantHeader !== undefined) headers["x-tenant-id"] = tenantHeader;
  if (chance(0.05))
    headers["content-type"] = pick([
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/problem+json",
      "",
    ]);
  if (chance(0.03)) headers.host = pick(["evil.example", "localhost.evil.example:8100", "[::1]:1"]);
  if (chance(0.05)) headers["x-request-id"] = pick(["", "x".repeat(300), "constructor"]);
  const route = pick<Route>([
    "episode",
    "episode",
    "episode",
    "episode",
    "batch",
    "compile",
    "compile",
    "job",
    "search",
    "context",
    "timeline",
    "timeline",
    "exact",
    "subjects",
    "delete",
    "health",
    "other",
  ]);
  const post = (path: string, body: Record<string, unknown>, mutate = chance(0.5)): FuzzRequest => {
    if (mutate) mutateObject(body);
    return {
      route,
      method: chance(0.03) ? pick(["PUT", "PATCH", "GET"]) : "POST",
      path,
      headers,
      body: mutateText(JSON.stringify(body)),
    };
  };
  switch (route) {
    case "episode": {
      const request = post("/v1/episodes", validEpisode(subject));
      if (chance(0.01)) request.abort = true;
      return request;
    }
    case "batch": {
      const size = chance(0.1) ? pick([0, 101]) : 1 + integer(5);
      const episodes = Array.from({ length: size }, () =>
        validEpisode(chance(0.8) ? subject : pick(subjects)),
      );
      return post("/v1/episodes/batch", { episodes }, chance(0.4));
    }
    case "compile":
      return post("/v1/memories/compile", {
        subject_id: subject,
        async: pick([false, true, "yes", 2]),
      });
    case "job":
      return {
        route,
        method: "GET",
        path: `/v1/memories/compile/${chance(0.6) && jobIds.length > 0 ? pick(jobIds) : encode(weirdString() || "x")}`,
        headers,
      };
    case "search":
      return {
        route,
        method: "GET",
        path: `/v1/memories/search?${query({ subject_id: subject, q: pick(["note", "%", "_", "😀", "", "\u0000", "x".repeat(2100)]), kind: pick(["decision", "architectural_decision", "constructor", "\u0000"]), limit: pick(["1", "100", "0", "-1", "101", "abc", "5.5"]) })}`,
        headers,
      };
    case "context":
      return post("/v1/context", {
        subject_id: subject,
        task: pick([
          "implement auth",
          "😀".repeat(4001),
          "constructor __proto__",
          "x",
          `note w${"x".repeat(2100)}`,
          "a\u0000b note",
        ]),
        max_tokens: pick([1, 100, 128_000, 0, "__NUMBER__", null]),
      });
    case "timeline":
      return {
        route,
        method: "GET",
        path: `/v1/timeline?${query({ subject_id: subject, limit: pick(["1", "100", "10000", "10001", "0"]), offset: pick(["0", "5", "-1", "99999999999999999999"]) })}`,
        headers,
      };
    case "exact": {
      // The exact reads (GET /v1/memories, /v1/changes, a memory or an episode by id).
      const cursor = pick([
        "",
        "m1.5",
        "c1.0.0",
        "t1.1.1",
        "m1.-1",
        "m1.99999999999999999",
        "\u0000",
      ]);
      const id = encode(
        chance(0.5) ? weirdString() || "x" : "00000000-0000-0000-0000-000000000000",
      );
      return {
        route,
        method: "GET",
        path: pick([
          `/v1/memories?${query({ subject_id: subject, kind: pick(["architectural_decision", "", "\u0000"]), target: pick(["auth", "", "x".repeat(4001)]), target_prefix: pick(["src/", "", "\u0000"]), status: pick(["active", "any", "retired", ""]), limit: pick(["1", "500", "501", "0", "x"]), cursor })}`,
          `/v1/changes?${query({ subject_id: subject, cursor, limit: pick(["1", "100", "501", "-1"]) })}`,
          `/v1/memories/${id}?${query({ subject_id: subject })}`,
          `/v1/episodes/${id}?${query({ subject_id: pick([subject, ""]) })}`,
          `/v1/timeline?${query({ subject_id: subject, cursor, newest_first: pick(["true", "false", "x"]), offset: pick(["0", "3"]) })}`,
        ]),
        headers,
      };
    }
    case "subjects":
      return {
        route,
        method: "GET",
        path: `/v1/subjects?${query({ limit: pick(["1", "50", "200", "201"]), offset: pick(["0", "3", "x"]) })}`,
        headers,
      };
    case "delete": {
      // Mostly a scratch subject, so most acknowledged writes stay checkable.
      const target = chance(0.97) ? `scratch-${index % 7}` : subject;
      return {
        route,
        method: "DELETE",
        path: `/v1/subjects/${encode(target)}`,
        headers,
        deletes: { tenant: tenantHeader, subject: target },
      };
    }
    case "health":
      return {
        route,
        method: pick(["GET", "POST", "HEAD"]),
        path: pick(["/healthz", "/health", "/readyz", "/ready"]),
        headers,
      };
    default:
      return {
        route,
        method: pick(["GET", "POST", "OPTIONS", "TRACE", "DELETE"]),
        path: pick([
          "/",
          "/v1",
          "/v1/episodes/",
          "/v1/../v1/subjects",
          "/v1/subjects/",
          "/%FF",
          "/v1/memories/compile/",
          `/${"a".repeat(3000)}`,
        ]),
        headers,
        body: chance(0.5) ? Buffer.from("{}") : undefined,
      };
  }
}

interface Answer {
  status: number;
  body: string;
}

function send(server: RunningServer, agent: Agent, fuzz: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...fuzz.headers };
    if (headers.host === undefined) headers.host = `127.0.0.1:${server.port}`;
    if (fuzz.body) headers["content-length"] = fuzz.body.length;
    const request = httpRequest(
      {
        host: "127.0.0.1",
        port: server.port,
        method: fuzz.method,
        path: fuzz.path,
        headers,
        agent,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(fuzz.body);
  });
}

/** Sends part of a body on a raw socket, then cuts it: an aborted upload. */
function sendAborted(server: RunningServer, fuzz: FuzzRequest): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(server.port, "127.0.0.1", () => {
      const body = fuzz.body ?? Buffer.alloc(0);
      socket.write(
        `POST ${fuzz.path} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 1000}\r\n\r\n`,
      );
      socket.write(body.subarray(0, Math.floor(body.length / 2)));
      setImmediate(() => {
        socket.destroy();
        resolve();
      });
    });
    socket.on("error", () => resolve());
  });
}

/**
 * The fuzz on one store. `prepare` runs inside the `describe` (where `usePostgres` registers its
 * hooks) and returns how to open the store, once, before the requests.
 */
export function describeServeFuzz(
  storeName: string,
  prepare: () => () => Promise<FuzzedStore>,
  skip = false,
): void {
  describe.skipIf(skip)(
    `serve on ${storeName} under fuzzed input (seed ${seed}, ${requestCount} requests)`,
    () => {
      let server: RunningServer;
      let store: FuzzedStore;
      const openStore = prepare();
      const unexpected: unknown[] = [];

      beforeAll(async () => {
        store = await openStore();
        server = await startServer({
          store,
          port: 0,
          closeStore: false,
          onUnexpectedError: (error) => unexpected.push(error),
        });
      });
      afterAll(async () => {
        await server?.close();
        await store?.close();
      });

      it("answers every request without a 5xx, loses no acknowledged write, and stays healthy", async () => {
        const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
        const fiveHundreds: string[] = [];
        const statuses = new Map<number, number>();
        /** `tenant\0subject` -> episode ids acknowledged with a 201. */
        const acknowledged = new Map<string, string[]>();
        const deleted = new Set<string>();
        const jobIds: string[] = [];
        const keyOf = (tenant: string | undefined, subject: string) =>
          `${tenant ?? ""}\u0000${subject}`;
        const tenantOf = (fuzz: FuzzRequest) => {
          return fuzz.headers["x-tenant-id"];
        };

        let next = 0;
        const worker = async () => {
          for (let index = next++; index < requestCount; index = next++) {
            const fuzz = makeRequest(index, jobIds);
            if (fuzz.deletes) deleted.add(keyOf(fuzz.deletes.tenant, fuzz.deletes.subject));
            if (fuzz.abort) {
              await sendAborted(server, fuzz);
              continue;
            }
            const answer = await send(server, agent, fuzz);
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            if (answer.status >= 500) {
              fiveHundreds.push(
                `#${index} ${fuzz.method} ${fuzz.path.slice(0, 200)} ${JSON.stringify(fuzz.headers)} ${fuzz.body?.toString().slice(0, 300)} -> ${answer.status} ${answer.body.slice(0, 300)}`,
              );
            }
            if (answer.status === 201 || answer.status === 202) {
              const body = JSON.parse(answer.body) as {
                id?: string;
                subject_id?: string;
                episodes?: Array<{ id: string; subject_id: string }>;
                job_id?: string;
              };
              const created =
                body.episodes ??
                (body.id && body.subject_id !== undefined
                  ? [{ id: body.id, subject_id: body.subject_id }]
                  : []);
              for (const episode of created) {
                const key = keyOf(tenantOf(fuzz), episode.subject_id);
                acknowledged.set(key, [...(acknowledged.get(key) ?? []), episode.id]);
              }
              if (body.job_id) jobIds.push(body.job_id);
            }
          }
        };
        await Promise.all(Array.from({ length: concurrency }, worker));
        agent.destroy();

        expect(fiveHundreds, `seed ${seed}`).toEqual([]);
        expect(unexpected, `seed ${seed}`).toEqual([]);
        // The fuzz must reach the store, not only bounce off validation.
        const seen = JSON.stringify(Object.fromEntries(statuses));
        expect(statuses.get(201) ?? 0, seen).toBeGreaterThan(requestCount / 20);
        expect(statuses.get(422) ?? 0, seen).toBeGreaterThan(requestCount / 10);
        expect(statuses.get(200) ?? 0, seen).toBeGreaterThan(requestCount / 10);

        let checked = 0;
        for (const [key, ids] of acknowledged) {
          if (deleted.has(key)) continue;
          const separator = key.indexOf("\u0000");
          const tenant = key.slice(0, separator);
          const subject = key.slice(separator + 1);
          const view = store.forTenant(tenant === "" ? null : tenant);
          const timeline = await view.getTimeline(subject, { limit: 10_000 });
          const seen = new Map<string, number>();
          for (const episode of timeline.episodes)
            seen.set(episode.id, (seen.get(episode.id) ?? 0) + 1);
          for (const id of ids) expect(seen.get(id), `episode ${id} of ${key}`).toBe(1);
          checked += ids.length;
          // No subject is left poisoned: it still compiles.
          await expect(view.compileMemories(subject)).resolves.toMatchObject({
            subjectId: subject,
          });
        }
        expect(checked).toBeGreaterThan(requestCount / 20);
        console.info(`fuzz seed ${seed}: statuses ${seen}; ${checked} acknowledged writes checked`);

        for (const path of ["/healthz", "/readyz"]) {
          expect((await fetch(`${server.url}${path}`)).status).toBe(200);
        }
      }, 120_000);
    },
  );
}
