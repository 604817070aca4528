import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import {
  type RunningServer,
  type StartServerOptions,
  startServer,
} from "../../src/server/listen.js";
import { PortInUseError } from "../../src/server/port-in-use-error.js";
import { inFlightPost } from "../support/in-flight-request.js";

/** A store whose reads reject with `error`, and whose close is counted (and may fail). */
function stubStore(error: unknown, closeError?: unknown) {
  const view = new Proxy({} as ContextStore, { get: () => () => Promise.reject(error) });
  const state = { closes: 0 };
  return {
    state,
    store: {
      forTenant: () => view,
      close: async () => {
        state.closes += 1;
        if (closeError !== undefined) throw closeError;
      },
    },
  };
}

describe("startServer options", () => {
  const running: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close().catch(() => undefined)));
  });
  async function start(options: Partial<StartServerOptions> = {}) {
    const server = await startServer({
      store: new EmbeddedStore({ path: ":memory:" }),
      port: 0,
      ...options,
    });
    running.push(server);
    return server;
  }

  it.each([
    ["0.0.0.0", "127.0.0.1"],
    ["::", "[::1]"],
    ["::1", "[::1]"],
  ])("binds %s and gives a URL a client can use (%s)", async (host, shown) => {
    const server = await start({ host, insecureNoAuth: true });
    expect(server.url).toBe(`http://${shown}:${server.port}`);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("passes the API key, request ids, body limit and error listener to the app", async () => {
    const unexpected: unknown[] = [];
    const boom = new Error("disk on fire");
    const { store } = stubStore(boom);
    const server = await start({
      store,
      apiKey: "secret",
      generateRequestId: () => "fixed",
      maxBodyBytes: 5,
      onUnexpectedError: (error) => unexpected.push(error),
    });
    const refused = await fetch(`${server.url}/v1/subjects`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("x-request-id")).toBe("fixed");
    const headers = { "X-API-Key": "secret" };
    const failed = await fetch(`${server.url}/v1/subjects`, { headers });
    expect(failed.status).toBe(500);
    expect(unexpected).toEqual([boom]);
    const large = await fetch(`${server.url}/v1/episodes`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: '{"a":1}',
    });
    expect(large.status).toBe(413);
  });

  it("passes allowedHosts to the Host check", async () => {
    const server = await start({ allowedHosts: ["devbox"] });
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        httpRequest(
          { host: "127.0.0.1", port: server.port, path: "/healthz", headers: { Host: host } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        )
          .on("error", reject)
          .end();
      });
    expect(await status("devbox")).toBe(200);
    expect(await status("evil.test")).toBe(403);
  });

  it("leaves the store open with closeStore: false, and closes it by default", async () => {
    const kept = stubStore(new Error("unused"));
    await (await start({ store: kept.store, closeStore: false })).close();
    expect(kept.state.closes).toBe(0);
    const closedByDefault = stubStore(new Error("unused"));
    await (await start({ store: closedByDefault.store })).close();
    expect(closedByDefault.state.closes).toBe(1);
  });

  it("tells onUnexpectedError when the store fails to close, and still settles `closed`", async () => {
    const unexpected: unknown[] = [];
    const closeFailure = new Error("cannot close");
    const { store } = stubStore(new Error("unused"), closeFailure);
    const controller = new AbortController();
    const server = await start({
      store,
      signal: controller.signal,
      onUnexpectedError: (error) => unexpected.push(error),
    });
    controller.abort();
    await server.closed;
    expect(unexpected).toContain(closeFailure);
  });

  it("rejects other listen errors as they are, not as PortInUseError", async () => {
    const error = await startServer({
      store: new EmbeddedStore({ path: ":memory:" }),
      port: 0,
      host: "203.0.113.1",
      insecureNoAuth: true,
    }).catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(PortInUseError);
    expect(error).toMatchObject({ code: "EADDRNOTAVAIL" });
  });

  it("tells a client whose request was in flight at close to drop the connection", async () => {
    const server = await start();
    const request = await inFlightPost(`${server.url}/v1/episodes`, {
      subject_id: "s",
      source: "a",
      type: "t",
      payload: {},
    });
    const closing = server.close();
    request.finish();
    const { status, headers } = await request.answered;
    expect({ status, connection: headers.connection }).toEqual({
      status: 201,
      connection: "close",
    });
    await closing;
  });

  it("cuts a connection still open after shutdownTimeoutMs", async () => {
    const server = await start({ shutdownTimeoutMs: 50 });
    // A request whose body never finishes keeps its connection busy.
    const request = httpRequest(`${server.url}/v1/episodes`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Content-Length": 1000 },
    });
    request.on("error", () => undefined);
    request.write('{"subject_id":');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.close();
    request.destroy();
  }, 10_000);
});
