import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  type RunningStatewaveEmulator,
  startStatewaveEmulator,
} from "../../../src/server/compat/listen-statewave-emulator.js";

describe("startStatewaveEmulator", () => {
  const running: RunningStatewaveEmulator[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close()));
  });
  async function start(options: Parameters<typeof startStatewaveEmulator>[0] = {}) {
    const server = await startStatewaveEmulator(options);
    running.push(server);
    return server;
  }

  it("serves the emulation on 127.0.0.1 on an ephemeral port, with the options given", async () => {
    const server = await start({ generateRequestId: () => "fixed-id" });
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBe("fixed-id");
    expect(await response.json()).toEqual({ status: "ok" });
    expect(server.emulator.requests.get("GET /healthz")).toBe(1);
  });

  it("brackets an IPv6 host in its url", async () => {
    const server = await start({ host: "::1" });
    expect(server.url).toBe(`http://[::1]:${server.port}`);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it("listens on the port asked for, and rejects one already taken", async () => {
    const probe = createServer();
    const free = await new Promise<number>((resolve) => {
      probe.listen(0, "127.0.0.1", () => {
        const address = probe.address();
        resolve(typeof address === "object" && address !== null ? address.port : 0);
      });
    });
    await expect(startStatewaveEmulator({ port: free })).rejects.toMatchObject({
      code: "EADDRINUSE",
    });
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const server = await start({ port: free });
    expect(server.port).toBe(free);
  });

  it("closes once however often asked, with a kept-alive connection open", async () => {
    const server = await start();
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const first = server.close();
    expect(server.close()).toBe(first);
    await first;
    await server.closed;
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });

  it("closes when the signal is aborted, or at once when it already was", async () => {
    const controller = new AbortController();
    const server = await start({ signal: controller.signal });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    controller.abort();
    await server.closed;
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();

    const aborted = new AbortController();
    aborted.abort();
    const never = await start({ signal: aborted.signal });
    await never.closed;
    await expect(fetch(`${never.url}/healthz`)).rejects.toThrow();
  });
});
