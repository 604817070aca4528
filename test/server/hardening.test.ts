import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { CompileEpisodeError } from "../../src/context/errors/compile-episode-error.js";
import { createApp } from "../../src/server/app.js";
import { boundedEcho, echoLimits } from "../../src/server/bounded-json.js";
import { createHostCheck, parseHostHeader } from "../../src/server/host-check.js";
import { type RunningServer, startServer } from "../../src/server/listen.js";
import { numberLiteralProblem } from "../../src/server/read-json-body.js";
import { objectMemberNames } from "../support/fixtures/object-member-names.js";

const json = { "Content-Type": "application/json" };
type WireObject = Record<string, unknown>;
interface ErrorBody {
  error: {
    code: string;
    message: string;
    details: unknown;
  };
}
interface Detail {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input?: unknown;
}

function episode(subjectId: string, type: string, content: string) {
  return { subject_id: subjectId, source: "agent-a", type, payload: { content } };
}

describe("serve hardening", () => {
  let store: EmbeddedStore;
  let app: ReturnType<typeof createApp>;
  const unexpected: unknown[] = [];

  beforeEach(() => {
    store = new EmbeddedStore({ path: ":memory:" });
    unexpected.length = 0;
    app = createApp({ store, onUnexpectedError: (error) => unexpected.push(error) });
  });
  afterEach(async () => {
    await store.close();
    expect(unexpected).toEqual([]);
  });

  async function send(path: string, init: RequestInit = {}) {
    const response = await app.fetch(new Request(`http://127.0.0.1${path}`, init));
    return { status: response.status, body: (await response.json()) as WireObject };
  }
  function post(path: string, body: unknown) {
    return send(path, {
      method: "POST",
      headers: json,
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  }
  function firstDetail(body: WireObject): Detail {
    return ((body as unknown as ErrorBody).error.details as Detail[])[0] as Detail;
  }

  describe("the poisoned-compile class: an episode type named like an Object member", () => {
    it.each([...objectMemberNames, "propertyIsEnumerable"])(
      "%s compiles to an episode_summary, and the subject keeps compiling",
      async (type) => {
        const subject = `poison-${type}`;
        expect((await post("/v1/episodes", episode(subject, type, "odd type"))).status).toBe(201);
        const first = await post("/v1/memories/compile", { subject_id: subject });
        expect(first.status).toBe(200);
        expect(first.body.memories).toMatchObject([{ kind: "episode_summary", confidence: 0.8 }]);

        await post("/v1/episodes", episode(subject, "decision", "later decision"));
        const job = await post("/v1/memories/compile", { subject_id: subject, async: true });
        expect(job.status).toBe(202);
        const done = await store.compileMemoriesWait(subject, { timeoutMs: 5000 });
        // The wait starts a job of its own; the one started over HTTP must have completed too.
        const polled = await send(`/v1/memories/compile/${String(job.body.job_id)}`);
        expect(polled.body).toMatchObject({ status: "completed", memories_created: 1 });
        expect(done.status).toBe("completed");
        const context = await post("/v1/context", { subject_id: subject, task: "later decision" });
        expect(context.status).toBe(200);
        expect(String(context.body.assembled_context)).toContain("later decision");
      },
    );

    it("ranks a memory whose kind is an Object member name without NaN scores", async () => {
      // Another writer (an older file, another store) may have stored any kind.
      await post("/v1/episodes", episode("kinds", "note", "a normal note"));
      await post("/v1/memories/compile", { subject_id: "kinds" });
      const context = await post("/v1/context", { subject_id: "kinds", task: "normal note" });
      expect(context.status).toBe(200);
    });
  });

  describe("input that used to overflow the stack", () => {
    it.each([
      ["a top-level array nested 4,500 deep", `${"[".repeat(4500)}${"]".repeat(4500)}`],
      ["an object nested 4,500 deep", `${'{"a":'.repeat(4500)}1${"}".repeat(4500)}`],
      [
        "a payload nested 100,000 deep",
        `{"subject_id":"s","source":"a","type":"t","payload":${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}}`,
      ],
    ])("%s is a 422, never a 500", async (_label, text) => {
      const answer = await post("/v1/episodes", text);
      expect(answer.status).toBe(422);
      expect(firstDetail(answer.body).type).toBe("json_invalid");
    });

    it("echoes a large non-object body only in bounded form", async () => {
      const answer = await post(
        "/v1/episodes",
        JSON.stringify(Array.from({ length: 200 }, () => [[["x".repeat(2000)]]])),
      );
      expect(answer.status).toBe(422);
      const input = firstDetail(answer.body).input as unknown[];
      expect(input).toHaveLength(echoLimits.width + 1);
      expect(JSON.stringify(answer.body).length).toBeLessThan(60_000);
    });

    it("lists at most 50 problems for a batch of 100 bad episodes", async () => {
      const episodes = Array.from({ length: 100 }, () => ({ payload: [] }));
      const answer = await post("/v1/episodes/batch", { episodes });
      expect(answer.status).toBe(422);
      expect((answer.body as unknown as ErrorBody).error.details).toHaveLength(50);
    });
  });

  describe("boundedEcho", () => {
    it("keeps small values as they are, a __proto__ key as a plain key", () => {
      const value = JSON.parse('{"a":[1,"x",null,true],"__proto__":{"b":2}}');
      const echo = boundedEcho(value) as WireObject;
      expect(JSON.stringify(echo)).toBe('{"a":[1,"x",null,true],"__proto__":{"b":2}}');
      expect(Object.getPrototypeOf(echo)).toBe(Object.prototype);
    });

    it("cuts depth, width and long strings", () => {
      const deep = JSON.parse(`${"[".repeat(50)}${"]".repeat(50)}`);
      expect(JSON.stringify(boundedEcho(deep))).toBe(`${"[".repeat(8)}"…"${"]".repeat(8)}`);
      expect(boundedEcho("y".repeat(10_000))).toHaveLength(echoLimits.stringLength + 1);
    });
  });

  describe("payload numbers round-trip exactly or are refused", () => {
    it.each([
      ["9007199254740993", "payload.n"],
      ["1e400", "payload.n"],
      ["-1e400", "payload.n"],
      ["-0", "payload.n"],
      ["-0.0", "payload.n"],
      ["1e-400", "payload.n"],
      ["100000000000000000000000", "payload.n"],
    ])("%s gets a 422 that says why", async (literal, path) => {
      const text = `{"subject_id":"numbers","source":"a","type":"t","payload":{"ok":1,"n":${literal}}}`;
      const answer = await post("/v1/episodes", text);
      expect(answer.status).toBe(422);
      const detail = firstDetail(answer.body);
      expect(detail.type).toBe("number_not_exact");
      expect(detail.loc).toEqual(["body", ...path.split(".")]);
      expect(detail.msg).toContain(literal);
      expect((await store.getTimeline("numbers")).episodes).toEqual([]);
    });

    it.each([
      "0",
      "0.0",
      "9007199254740991",
      "-9007199254740991",
      "9007199254740992",
      "0.1",
      "1.5e300",
      "1e21",
      "5e-324",
      "-12.5",
    ])("%s is stored and read back as the same number", async (literal) => {
      const text = `{"subject_id":"exact","source":"a","type":"t","payload":{"n":${literal},"s":"-0 1e400"}}`;
      const answer = await post("/v1/episodes", text);
      expect(answer.status).toBe(201);
      expect((answer.body.payload as WireObject).n).toBe(Number(literal));
      const [stored] = (await store.getTimeline("exact")).episodes.slice(-1);
      expect(stored?.payload.n).toBe(Number(literal));
    });

    it("names nothing for literals that are fine", () => {
      expect(numberLiteralProblem("123")).toBeUndefined();
      expect(numberLiteralProblem("1e400")).toMatch(/64-bit float/);
    });
  });

  describe("one length rule (code points, as Statewave documents) and wire locations", () => {
    const emoji = "😀".repeat(129);

    it("accepts a 129-emoji subject_id everywhere (258 UTF-16 units, 129 characters)", async () => {
      expect((await post("/v1/episodes", episode(emoji, "note", "x"))).status).toBe(201);
      expect((await post("/v1/memories/compile", { subject_id: emoji })).status).toBe(200);
      const timeline = await send(`/v1/timeline?subject_id=${encodeURIComponent(emoji)}`);
      expect(timeline.status).toBe(200);
      expect(timeline.body.episodes).toHaveLength(1);
      const deleted = await send(`/v1/subjects/${encodeURIComponent(emoji)}`, {
        method: "DELETE",
      });
      expect(deleted.body).toMatchObject({ episodes_deleted: 1 });
      await expect(
        store.createEpisode({ subjectId: emoji, source: "a", type: "t", payload: {} }),
      ).resolves.toMatchObject({ subjectId: emoji });
    });

    it("refuses 257 characters on both sides", async () => {
      const long = "😀".repeat(257);
      expect((await post("/v1/episodes", episode(long, "note", "x"))).status).toBe(422);
      await expect(
        store.createEpisode({ subjectId: long, source: "a", type: "t", payload: {} }),
      ).rejects.toMatchObject({ name: "StoreValidationError" });
    });

    it("a path parameter out of bounds says path and the wire name", async () => {
      const answer = await send(`/v1/subjects/${"s".repeat(257)}`, { method: "DELETE" });
      expect(answer.status).toBe(422);
      expect(firstDetail(answer.body)).toMatchObject({
        type: "string_too_long",
        loc: ["path", "subject_id"],
      });
    });

    it("a query offset beyond 2^53 says query and the wire name", async () => {
      const answer = await send("/v1/timeline?subject_id=s&offset=99999999999999999999");
      expect(answer.status).toBe(422);
      expect(firstDetail(answer.body)).toMatchObject({
        type: "less_than_equal",
        loc: ["query", "offset"],
      });
    });

    it("an empty subject_id in search and timeline finds nothing, as in Statewave", async () => {
      expect(await send("/v1/memories/search?subject_id=")).toEqual({
        status: 200,
        body: { memories: [] },
      });
      expect((await send("/v1/timeline?subject_id=")).status).toBe(200);
    });

    it("a query named like an Object member is just an unknown parameter", async () => {
      const answer = await send(
        "/v1/subjects?constructor=1&__proto__=2&toString=3&hasOwnProperty=4",
      );
      expect(answer.status).toBe(200);
    });
  });
});

describe("a compile that fails on one episode", () => {
  let dir: string;
  let store: EmbeddedStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "shared-ctx-poison-"));
    store = new EmbeddedStore({ path: join(dir, "store.db") });
    // A second connection installs a trigger that refuses one memory, the way a driver error would.
    const db = new Database(join(dir, "store.db"));
    db.exec(`CREATE TRIGGER refuse_poison BEFORE INSERT ON memories WHEN NEW.content = 'poison'
      BEGIN SELECT RAISE(ABORT, 'secret driver text'); END;`);
    db.close();
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function write(content: string) {
    return store.createEpisode({
      subjectId: "s",
      source: "a",
      type: "implementation_note",
      payload: { content },
    });
  }

  it("names the episode and the reason, compiles the others, and never blocks the subject", async () => {
    await write("before");
    const bad = await write("poison");
    await write("after");
    const error = await store.compileMemories("s").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CompileEpisodeError);
    const failure = error as CompileEpisodeError;
    expect(failure.skipped).toEqual([
      {
        episodeId: bad.id,
        type: "implementation_note",
        reason: "the database refused its memory (SQLITE_CONSTRAINT_TRIGGER)",
      },
    ]);
    expect(failure.memoriesCreated).toBe(2);
    expect(failure.message).toContain(bad.id);
    expect(failure.message).not.toContain("secret driver text");
    const active = await store.searchMemories("s");
    expect(active.map((memory) => memory.content).sort()).toEqual(["after", "before"]);

    await write("later");
    await expect(store.compileMemories("s")).resolves.toMatchObject({ memoriesCreated: 1 });
  });

  it("over HTTP: a 422 compile_failed naming the episode; an async job fails the same way", async () => {
    const app = createApp({ store });
    const bad = await write("poison");
    const response = await app.fetch(
      new Request("http://127.0.0.1/v1/memories/compile", {
        method: "POST",
        headers: json,
        body: JSON.stringify({ subject_id: "s" }),
      }),
    );
    expect(response.status).toBe(422);
    const body = (await response.json()) as ErrorBody;
    expect(body.error.code).toBe("compile_failed");
    expect(body.error.details).toMatchObject({
      subject_id: "s",
      memories_created: 0,
      skipped_episodes: [{ episode_id: bad.id, type: "implementation_note" }],
    });
    expect(JSON.stringify(body)).not.toContain("secret driver text");

    const second = await write("poison");
    const job = await store.compileMemoriesWait("s", { timeoutMs: 5000 });
    expect(job.status).toBe("failed");
    expect(job.error).toContain(second.id);
    expect(job.error).not.toContain("secret driver text");
    await write("fine");
    expect((await store.compileMemoriesWait("s", { timeoutMs: 5000 })).status).toBe("completed");
  });
});

describe("the Host check (DNS rebinding)", () => {
  it("parses Host headers", () => {
    expect(parseHostHeader("LocalHost.:8100")).toEqual({ name: "localhost", port: 8100 });
    expect(parseHostHeader("[::1]:9")).toEqual({ name: "::1", port: 9 });
    expect(parseHostHeader("example.com")).toEqual({ name: "example.com", port: undefined });
    expect(parseHostHeader("a:b:c")).toBeNull();
    expect(parseHostHeader("x:99999")).toBeNull();
  });

  it("a loopback server accepts its own names on its own port only", () => {
    const check = createHostCheck({ listenHost: "127.0.0.1", port: 8100 });
    expect(check).toBeDefined();
    for (const host of ["127.0.0.1:8100", "localhost:8100", "[::1]:8100", "LOCALHOST.:8100"]) {
      expect(check?.(host)).toBe(true);
    }
    for (const host of [
      "evil.example:8100",
      "127.0.0.1:8101",
      "localhost",
      "localhost.evil.example:8100",
      "",
      undefined,
    ]) {
      expect(check?.(host)).toBe(false);
    }
  });

  it("--allowed-host adds names (any port, or one port); * turns the check off", () => {
    const check = createHostCheck({
      listenHost: "127.0.0.1",
      port: 8100,
      allowedHosts: ["devbox", "proxy.internal:443"],
    });
    expect(check?.("devbox:8100")).toBe(true);
    expect(check?.("devbox")).toBe(true);
    expect(check?.("proxy.internal:443")).toBe(true);
    expect(check?.("proxy.internal:8100")).toBe(false);
    expect(createHostCheck({ listenHost: "::1", port: 1, allowedHosts: ["*"] })).toBeUndefined();
  });

  it("a server opened to the network with --host keeps the check: addresses and loopback names pass, other names need --allowed-hosts", () => {
    const open = createHostCheck({ listenHost: "0.0.0.0", port: 8100 });
    expect(open?.("192.168.1.5:8100")).toBe(true);
    expect(open?.("[fe80::1]:8100")).toBe(true);
    expect(open?.("localhost:8100")).toBe(true);
    expect(open?.("192.168.1.5:8101")).toBe(false);
    expect(open?.("evil.example:8100")).toBe(false);
    const narrowed = createHostCheck({ listenHost: "0.0.0.0", port: 8100, allowedHosts: ["a"] });
    expect(narrowed?.("a:8100")).toBe(true);
    expect(narrowed?.("b:8100")).toBe(false);
  });

  describe("over real HTTP", () => {
    let server: RunningServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    function get(port: number, host: string) {
      return new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = httpRequest(
          { host: "127.0.0.1", port, path: "/v1/subjects", headers: { Host: host } },
          (response) => {
            let body = "";
            response.on("data", (chunk: Buffer) => {
              body += chunk.toString();
            });
            response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
          },
        );
        request.on("error", reject);
        request.end();
      });
    }

    it("answers a rebound name with 403 host_not_allowed and serves its own", async () => {
      server = await startServer({
        store: new EmbeddedStore({ path: ":memory:" }),
        port: 0,
        allowedHosts: ["devbox"],
      });
      const refused = await get(server.port, `evil.example:${server.port}`);
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({
        error: { code: "host_not_allowed", message: expect.stringContaining("--allowed-host") },
      });
      expect((await get(server.port, `127.0.0.1:${server.port}`)).status).toBe(200);
      expect((await get(server.port, `localhost:${server.port}`)).status).toBe(200);
      expect((await get(server.port, `devbox:${server.port}`)).status).toBe(200);
    });
  });
});

describe("a client that disconnects mid-upload", () => {
  it("is not an internal error, and the server keeps serving", async () => {
    const unexpected: unknown[] = [];
    const server = await startServer({
      store: new EmbeddedStore({ path: ":memory:" }),
      port: 0,
      onUnexpectedError: (error) => unexpected.push(error),
    });
    try {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        await new Promise<void>((resolve) => {
          const socket = connect(server.port, "127.0.0.1", () => {
            socket.write(
              `POST /v1/episodes HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"subject_id":`,
            );
            setTimeout(() => {
              socket.destroy();
              resolve();
            }, 20);
          });
          socket.on("error", () => resolve());
        });
      }
      // Let the server notice the resets.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect(unexpected).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
