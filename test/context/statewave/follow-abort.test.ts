import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { followAbort } from "../../../src/context/statewave/follow-abort.js";
import { StatewaveTransport } from "../../../src/context/statewave/statewave-transport.js";

/**
 * A fetch that holds every request until `release()`, answering 200 `{}` then, and rejects with
 * its signal's reason when aborted (as the real one does).
 */
function heldFetch() {
  const waiting: (() => void)[] = [];
  const fetchDouble = (_input: string | URL | Request, init: RequestInit = {}) =>
    new Promise<Response>((resolve, reject) => {
      const signal = init.signal ?? undefined;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      waiting.push(() => resolve(new Response("{}", { status: 200 })));
    });
  return {
    fetch: fetchDouble as typeof fetch,
    inFlight: () => waiting.length,
    release: () => {
      for (const answer of waiting.splice(0)) answer();
    },
  };
}

function transportOver(fetchDouble: typeof fetch): StatewaveTransport {
  return new StatewaveTransport({
    baseUrl: "http://statewave.test",
    timeoutMs: 60_000,
    maxRetries: 0,
    fetch: fetchDouble,
    delay: async () => undefined,
    random: () => 0,
    now: () => 0,
  });
}

async function until(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 1000 && !condition(); attempt += 1) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(condition()).toBe(true);
}

describe("one abort listener per caller signal, however many requests are in flight", () => {
  it("keeps one listener on a command's signal for 50 concurrent requests, none after", async () => {
    const server = heldFetch();
    const transport = transportOver(server.fetch);
    const command = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const requests = Array.from({ length: 50 }, (_, index) =>
        transport.request({ method: "GET", path: `/v1/r/${index}`, signal: command.signal }),
      );
      await until(() => server.inFlight() === 50);
      expect(getEventListeners(command.signal, "abort")).toHaveLength(1);
      server.release();
      await Promise.all(requests);
      expect(getEventListeners(command.signal, "abort")).toHaveLength(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual(
        [],
      );
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("still aborts every request in flight with the caller's reason", async () => {
    const server = heldFetch();
    const transport = transportOver(server.fetch);
    const command = new AbortController();
    const requests = Array.from({ length: 20 }, () =>
      transport
        .request({ method: "GET", path: "/v1/x", signal: command.signal })
        .catch((error: unknown) => error),
    );
    await until(() => server.inFlight() === 20);
    const reason = new Error("Ctrl-C");
    command.abort(reason);
    expect(await Promise.all(requests)).toEqual(Array.from({ length: 20 }, () => reason));
    expect(getEventListeners(command.signal, "abort")).toHaveLength(0);
    // A request after the abort is aborted at once, adding no listener.
    await expect(
      transport.request({ method: "GET", path: "/v1/y", signal: command.signal }),
    ).rejects.toBe(reason);
  });

  it("followAbort: a second wave after the first finished gets its listener back", () => {
    const signal = new AbortController();
    const first = new AbortController();
    followAbort(signal.signal, first)();
    expect(getEventListeners(signal.signal, "abort")).toHaveLength(0);
    const second = new AbortController();
    const unfollow = followAbort(signal.signal, second);
    expect(getEventListeners(signal.signal, "abort")).toHaveLength(1);
    signal.abort("why");
    expect(second.signal.aborted).toBe(true);
    expect(second.signal.reason).toBe("why");
    expect(first.signal.aborted).toBe(false);
    unfollow();
  });
});
