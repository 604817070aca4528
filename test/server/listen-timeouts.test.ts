import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { InsecureBindError } from "../../src/server/insecure-bind-error.js";
import {
  type RunningServer,
  type StartServerOptions,
  startServer,
} from "../../src/server/listen.js";

/*
 * Socket timeouts are about wall time, so these tests use the real clock, on loopback only, with
 * timeouts of a fraction of a second and a bounded wait for each outcome.
 */

/** What a raw socket saw: the bytes it received and when (ms after `open`) it was closed. */
interface RawOutcome {
  received: string;
  closedAfterMs: number;
}

/** Opens a raw socket to the server, runs `drive` on it, and settles when the server closes it. */
function rawExchange(
  port: number,
  drive: (socket: Socket) => void,
  giveUpMs = 5000,
): Promise<RawOutcome> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let received = "";
    const socket = connect(port, "127.0.0.1", () => drive(socket));
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the socket open for ${giveUpMs} ms`));
    }, giveUpMs);
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(giveUp);
      resolve({ received, closedAfterMs: Date.now() - started });
    });
  });
}

describe("startServer timeouts and caps", () => {
  const running: RunningServer[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await Promise.all(running.splice(0).map((server) => server.close().catch(() => undefined)));
  });
  async function start(options: Partial<StartServerOptions> = {}) {
    const server = await startServer({
      store: new EmbeddedStore({ path: ":memory:" }),
      port: 0,
      shutdownTimeoutMs: 100,
      ...options,
    });
    running.push(server);
    return server;
  }

  it("closes a slowloris upload (a byte every 100 ms) with 408 once requestTimeoutMs is over", async () => {
    const unexpected: unknown[] = [];
    const server = await start({
      requestTimeoutMs: 800,
      headersTimeoutMs: 400,
      bodyIdleTimeoutMs: 2000,
      onUnexpectedError: (error) => unexpected.push(error),
    });
    let timer: NodeJS.Timeout | undefined;
    const outcome = await rawExchange(server.port, (socket) => {
      socket.write(
        `POST /v1/episodes HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
      );
      timer = setInterval(() => socket.write(" "), 100);
    });
    clearInterval(timer);
    expect(outcome.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(parseRaw(outcome.received).body.error.code).toBe("request_timeout");
    // The stated timeout, plus Node's check interval (a quarter of it) and scheduling slack.
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(700);
    expect(outcome.closedAfterMs).toBeLessThan(2500);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(unexpected).toEqual([]);
  });

  it("answers a body shorter than its Content-Length with a prompt 400 in Statewave's envelope", async () => {
    const unexpected: unknown[] = [];
    const server = await start({
      bodyIdleTimeoutMs: 300,
      onUnexpectedError: (error) => unexpected.push(error),
    });
    const outcome = await rawExchange(server.port, (socket) => {
      socket.write(
        `POST /v1/episodes HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"subject_id":"s"}`,
      );
    });
    expect(outcome.received).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const body = JSON.parse(outcome.received.slice(outcome.received.indexOf("\r\n\r\n") + 4));
    expect(body).toEqual({
      error: {
        code: "request_body_incomplete",
        message:
          "The request body stopped arriving: no byte for 300 ms before its end (is it shorter than its Content-Length?)",
      },
    });
    expect(outcome.closedAfterMs).toBeLessThan(2000);
    // Let the route notice the closed socket, then check nothing became an internal error.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(unexpected).toEqual([]);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("closes a socket whose headers never finish within headersTimeoutMs", async () => {
    const server = await start({ headersTimeoutMs: 500, bodyIdleTimeoutMs: 2000 });
    let timer: NodeJS.Timeout | undefined;
    const outcome = await rawExchange(server.port, (socket) => {
      socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`);
      timer = setInterval(() => socket.write("X-Slow: 1\r\n"), 100);
    });
    clearInterval(timer);
    expect(outcome.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(outcome.closedAfterMs).toBeLessThan(2500);
  });

  it("does not cut a slow route once its request was received whole", async () => {
    const slowView = new Proxy({} as ContextStore, {
      get: () => async () => {
        await new Promise((resolve) => setTimeout(resolve, 600));
        return { subjects: [], total: 0 };
      },
    });
    const server = await start({
      store: { forTenant: () => slowView, close: async () => undefined },
      bodyIdleTimeoutMs: 150,
    });
    const response = await fetch(`${server.url}/v1/subjects`);
    expect(response.status).toBe(200);
  });

  /** The status line, headers and parsed body of a raw answer. */
  function parseRaw(received: string) {
    const [head = "", body = ""] = received.split("\r\n\r\n");
    const [status = "", ...headers] = head.split("\r\n");
    return { status, headers, body: body ? JSON.parse(body) : undefined };
  }

  it("answers connections past maxConnections 503 in the envelope with Retry-After, and accepts again when they go", async () => {
    const server = await start({ maxConnections: 2, bodyIdleTimeoutMs: 5000 });
    const open = async () => {
      const socket = connect(server.port, "127.0.0.1");
      sockets.push(socket);
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      socket.write("GET /healthz HTTP/1.1\r\n");
      return socket;
    };
    const first = await open();
    await open();
    // Give the server the time to count both.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const third = await rawExchange(
      server.port,
      (socket) => socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`),
      2000,
    );
    const answer = parseRaw(third.received);
    expect(answer.status).toBe("HTTP/1.1 503 Service Unavailable");
    expect(answer.headers).toContain("Retry-After: 1");
    expect(answer.headers).toContain("Connection: close");
    expect(answer.body).toEqual({
      error: {
        code: "service_unavailable",
        message: "The server has 2 connections open, its limit (--max-connections); retry shortly",
      },
    });
    expect(third.closedAfterMs).toBeLessThan(1000);
    // fetch sees the same answer.
    const viaFetch = await fetch(`${server.url}/healthz`);
    expect(viaFetch.status).toBe(503);
    expect(viaFetch.headers.get("retry-after")).toBe("1");
    first.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("gives Node's 408 for headers that never finish the envelope too", async () => {
    const server = await start({ headersTimeoutMs: 300, bodyIdleTimeoutMs: 2000 });
    let timer: NodeJS.Timeout | undefined;
    const outcome = await rawExchange(server.port, (socket) => {
      socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`);
      timer = setInterval(() => socket.write("X-Slow: 1\r\n"), 50);
    });
    clearInterval(timer);
    const answer = parseRaw(outcome.received);
    expect(answer.status).toBe("HTTP/1.1 408 Request Timeout");
    expect(answer.body.error.code).toBe("request_timeout");
  });

  it("gives Node's 400 for a request that is not HTTP in the envelope", async () => {
    const server = await start();
    const outcome = await rawExchange(server.port, (socket) =>
      socket.write("NOT HTTP AT ALL\r\n\r\n"),
    );
    const answer = parseRaw(outcome.received);
    expect(answer.status).toBe("HTTP/1.1 400 Bad Request");
    expect(answer.body).toEqual({
      error: { code: "bad_request", message: "The request is not valid HTTP/1.1" },
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("gives Node's 431 for headers over its limit in the envelope", async () => {
    const server = await start();
    const outcome = await rawExchange(server.port, (socket) =>
      socket.write(
        `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
      ),
    );
    const answer = parseRaw(outcome.received);
    expect(answer.status).toBe("HTTP/1.1 431 Request Header Fields Too Large");
    expect(answer.body.error.code).toBe("headers_too_large");
  });
});

describe("startServer on a non-loopback interface", () => {
  it("refuses 0.0.0.0 without any key, naming the fixes", async () => {
    const store = new EmbeddedStore({ path: ":memory:" });
    try {
      const error = await startServer({ store, port: 0, host: "0.0.0.0" }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(InsecureBindError);
      expect((error as InsecureBindError).host).toBe("0.0.0.0");
      expect((error as Error).message).toContain("SHARED_CTX_API_KEY");
      expect((error as Error).message).toContain("--insecure-no-auth");
    } finally {
      await store.close();
    }
  });

  it.each([
    ["an API key", { apiKey: "k" }],
    ["tenant keys", { tenantKeys: [{ key: "k", tenants: ["a"] }] }],
    ["insecureNoAuth", { insecureNoAuth: true }],
  ])("starts on 0.0.0.0 with %s", async (_label, extra) => {
    const server = await startServer({
      store: new EmbeddedStore({ path: ":memory:" }),
      port: 0,
      host: "0.0.0.0",
      ...extra,
    });
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("startServer shutdown with a slow upload in flight", () => {
  it("ends about a second after the abort instead of waiting for the upload or the 10 s deadline", async () => {
    const controller = new AbortController();
    const server = await startServer({
      store: new EmbeddedStore({ path: ":memory:" }),
      port: 0,
      signal: controller.signal,
      shutdownTimeoutMs: 10_000,
    });
    let timer: NodeJS.Timeout | undefined;
    const upload = rawExchange(server.port, (socket) => {
      socket.write(
        `POST /v1/episodes HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
      );
      timer = setInterval(() => socket.write(" "), 100);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    controller.abort();
    await server.closed;
    expect(Date.now() - started).toBeLessThan(2500);
    await upload;
    clearInterval(timer);
  });
});
