import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { StoreClosedError } from "../../src/context/errors/store-closed-error.js";
import { type RunningServer, startServer } from "../../src/server/listen.js";
import { PortInUseError } from "../../src/server/port-in-use-error.js";
import { inFlightPost } from "../support/in-flight-request.js";

describe("startServer", () => {
  const running: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close()));
  });
  async function start(options: Partial<Parameters<typeof startServer>[0]> = {}) {
    const store = new EmbeddedStore({ path: ":memory:" });
    const server = await startServer({ store, port: 0, ...options });
    running.push(server);
    return { store, server };
  }

  it("binds 127.0.0.1 on an ephemeral port and answers over real HTTP", async () => {
    const { server } = await start();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.port).toBeGreaterThan(0);
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f]{16}$/);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("refuses a port in use with PortInUseError naming the port", async () => {
    const { server } = await start();
    const error = await startServer({
      store: new EmbeddedStore({ path: ":memory:" }),
      port: server.port,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PortInUseError);
    expect((error as PortInUseError).port).toBe(server.port);
    expect((error as Error).message).toContain(String(server.port));
    expect((error as Error).message).toContain("--port");
  });

  it("answers a body over the 16 MiB limit with the 413 envelope over real HTTP, and keeps serving", async () => {
    const { server } = await start();
    const response = await fetch(`${server.url}/v1/episodes`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ payload: { content: "x".repeat(17 * 1024 * 1024) } }),
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      "payload_too_large",
    );
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("finishes an in-flight request, then stops accepting and closes the store", async () => {
    const { store, server } = await start();
    // The server answers 100 Continue once it has taken the request: then it is in flight.
    const request = await inFlightPost(`${server.url}/v1/episodes`, {
      subject_id: "graceful",
      source: "agent",
      type: "implementation_note",
      payload: { content: "written during shutdown" },
    });

    const closing = server.close();
    request.finish();

    const answered = await request.answered;
    expect(answered.status).toBe(201);
    expect(JSON.parse(answered.text)).toMatchObject({ subject_id: "graceful" });
    await closing;
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    await expect(store.getTimeline("graceful")).rejects.toBeInstanceOf(StoreClosedError);
  });

  it("shuts down when the signal is aborted, and `closed` settles", async () => {
    const controller = new AbortController();
    const { store, server } = await start({ signal: controller.signal });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    controller.abort();
    await server.closed;
    await expect(store.listSubjects()).rejects.toBeInstanceOf(StoreClosedError);
  });

  it("does not start when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const { server } = await start({ signal: controller.signal });
    await server.closed;
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
