import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StatewaveAPIError } from "../../../src/context/statewave/errors/statewave-api-error.js";
import { StatewaveConnectionError } from "../../../src/context/statewave/errors/statewave-connection-error.js";
import { StatewaveTimeoutError } from "../../../src/context/statewave/errors/statewave-timeout-error.js";
import {
  abortableDelay,
  StatewaveTransport,
  type TransportSettings,
} from "../../../src/context/statewave/statewave-transport.js";

const baseUrl = "http://statewave.test";

/** What the server does for one call: answer, fail to connect, or never answer. */
type Answer = Response | Error | "hang";

interface Call {
  url: string;
  init: RequestInit;
}

/**
 * A `fetch` test double that answers from a script (the last answer repeats) and, like the real
 * one, rejects with its signal's reason when that signal is or becomes aborted.
 */
function scriptedFetch(answers: Answer[]) {
  const calls: Call[] = [];
  const abortReasons: unknown[] = [];
  const fetchDouble = async (input: string | URL | Request, init: RequestInit = {}) => {
    calls.push({ url: String(input), init });
    const signal = init.signal ?? undefined;
    if (signal?.aborted) {
      abortReasons.push(signal.reason);
      throw signal.reason;
    }
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
    if (answer === undefined) throw new Error("the script has no answer");
    if (answer === "hang") {
      return new Promise<Response>((_resolve, reject) => {
        signal?.addEventListener("abort", () => {
          abortReasons.push(signal.reason);
          reject(signal.reason);
        });
      });
    }
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetch: fetchDouble as typeof fetch, calls, abortReasons };
}

/** A transport over the scripted fetch; backoff without jitter so delays are exact. */
function transportOver(answers: Answer[], settings: Partial<TransportSettings> = {}) {
  const server = scriptedFetch(answers);
  const delays: number[] = [];
  const transport = new StatewaveTransport({
    baseUrl,
    timeoutMs: 60_000,
    maxRetries: 2,
    fetch: server.fetch,
    delay: async (ms) => {
      delays.push(ms);
    },
    random: () => 0,
    now: () => 0,
    jitter: false,
    ...settings,
  });
  return { transport, delays, ...server };
}

function json(status: number, body: unknown, init: ResponseInit = {}): Response {
  return new Response(JSON.stringify(body), {
    ...init,
    status,
    headers: { "Content-Type": "application/json", ...init.headers },
  });
}

/** Settles a promise into its value or its rejection reason, so a test can inspect either. */
function settle<T>(promise: Promise<T>): Promise<T | unknown> {
  return promise.then(
    (value) => value,
    (error: unknown) => error,
  );
}

describe("abortableDelay", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("resolves after the delay and leaves no listener on the signal", async () => {
    const controller = new AbortController();
    const outcome = settle(abortableDelay(100, controller.signal));

    await vi.advanceTimersByTimeAsync(100);

    expect(await outcome).toBeUndefined();
    // A long-lived signal shared by many delays would otherwise collect one listener per delay.
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("rejects at once with the reason of a signal that is already aborted", async () => {
    const reason = new Error("stopped before the wait");
    const outcome = settle(abortableDelay(100, AbortSignal.abort(reason)));

    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(await outcome).toBe(reason);
  });

  it("rejects with the reason when aborted mid-wait, clearing its timer and its listener", async () => {
    const controller = new AbortController();
    const reason = new Error("stopped mid-wait");
    const outcome = settle(abortableDelay(100, controller.signal));

    await vi.advanceTimersByTimeAsync(40);
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(60);

    expect(await outcome).toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});

describe("StatewaveTransport.request", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  describe("the request", () => {
    it("asks for JSON, and sends only the headers a GET needs", async () => {
      const { transport, calls } = transportOver([json(200, { ok: true })]);

      await transport.request({ method: "GET", path: "/v1/health" });

      expect(calls).toHaveLength(1);
      expect(calls[0]?.url).toBe(`${baseUrl}/v1/health`);
      expect(calls[0]?.init.method).toBe("GET");
      expect(calls[0]?.init.headers).toStrictEqual({ Accept: "application/json" });
    });

    it("leaves no timer and no listener on the caller's signal once answered", async () => {
      vi.useFakeTimers();
      const controller = new AbortController();
      const { transport } = transportOver([json(200, { ok: true })]);

      await transport.request({ method: "GET", path: "/v1/health", signal: controller.signal });

      // One signal often spans many requests (a watch loop): each must clean up after itself.
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
      expect(vi.getTimerCount()).toBe(0);
    });
  });

  describe("the answer", () => {
    it("decodes an empty 2xx body (a 204) as null", async () => {
      const { transport } = transportOver([new Response(null, { status: 204 })]);

      await expect(
        transport.request({ method: "DELETE", path: "/v1/memories/session-1" }),
      ).resolves.toBeNull();
    });

    it("rejects a 2xx body that is not JSON as invalid_response, without retrying", async () => {
      const { transport, calls, delays } = transportOver([
        new Response("<html>proxy login</html>", { status: 200 }),
      ]);

      const error = await settle(transport.request({ method: "GET", path: "/v1/health" }));

      expect(error).toBeInstanceOf(StatewaveAPIError);
      expect(error).toMatchObject({
        statusCode: 200,
        code: "invalid_response",
        message: "[200] invalid_response: Response is not JSON",
      });
      expect(calls).toHaveLength(1);
      expect(delays).toEqual([]);
    });

    it.each([
      ["Bad Gateway", "[502] unknown: Bad Gateway"],
      ["", "[502] unknown: HTTP 502"],
    ])(
      "names an error without an envelope by its status text %j: %s",
      async (statusText, message) => {
        const { transport } = transportOver(
          [json(502, { detail: "upstream down" }, { statusText })],
          { maxRetries: 0 },
        );

        const error = await settle(transport.request({ method: "GET", path: "/v1/health" }));

        expect(error).toBeInstanceOf(StatewaveAPIError);
        expect(error).toMatchObject({ statusCode: 502, code: "unknown", message });
      },
    );
  });

  describe("connection failures", () => {
    it.each([
      ["ECONNREFUSED", "connection refused (ECONNREFUSED)"],
      ["EPIPE", "connection failed (EPIPE)"],
    ])("says why in words for %s, keeping fetch's error as the cause", async (code, reason) => {
      const failure = new TypeError("fetch failed", {
        cause: Object.assign(new Error(`connect ${code} 127.0.0.1:4100`), { code }),
      });
      const { transport } = transportOver([failure], { maxRetries: 0 });

      const error = await settle(transport.request({ method: "GET", path: "/v1/health" }));

      expect(error).toBeInstanceOf(StatewaveConnectionError);
      expect(error).toMatchObject({
        url: baseUrl,
        message: `Cannot reach the Statewave server at ${baseUrl}: ${reason}. Start one with \`npx shared-ctx serve\`, or check the URL (--url or STATEWAVE_URL).`,
      });
      expect((error as Error).cause).toBe(failure);
    });

    it("times out after timeoutMs with a StatewaveTimeoutError caused by the aborted fetch", async () => {
      vi.useFakeTimers();
      const { transport, abortReasons } = transportOver(["hang"], {
        timeoutMs: 250,
        maxRetries: 0,
      });

      const outcome = settle(transport.request({ method: "GET", path: "/v1/health" }));
      await vi.advanceTimersByTimeAsync(250);
      const error = await outcome;

      expect(error).toBeInstanceOf(StatewaveTimeoutError);
      expect(error).toMatchObject({
        name: "StatewaveTimeoutError",
        url: baseUrl,
        timeoutMs: 250,
        message: `Cannot reach the Statewave server at ${baseUrl}: no answer within 250 ms. Start one with \`npx shared-ctx serve\`, or check the URL (--url or STATEWAVE_URL).`,
      });
      expect(abortReasons).toHaveLength(1);
      expect((error as Error).cause).toBe(abortReasons[0]);
    });
  });

  describe("the caller's abort", () => {
    it("with a signal already aborted, aborts the fetch and rejects with the caller's reason", async () => {
      const reason = new Error("caller gave up first");
      const { transport, calls } = transportOver([json(200, { ok: true })]);

      const outcome = await settle(
        transport.request({ method: "GET", path: "/v1/health", signal: AbortSignal.abort(reason) }),
      );

      expect(outcome).toBe(reason);
      expect(calls[0]?.init.signal?.aborted).toBe(true);
    });

    it("mid-flight, aborts the fetch at once and rejects with the caller's reason, not retried", async () => {
      const controller = new AbortController();
      const reason = new Error("caller gave up");
      const { transport, calls, delays } = transportOver(["hang"]);

      const outcome = settle(
        transport.request({ method: "GET", path: "/v1/health", signal: controller.signal }),
      );
      await vi.waitFor(() => expect(calls).toHaveLength(1));
      controller.abort(reason);

      expect(calls[0]?.init.signal?.aborted).toBe(true);
      expect(await outcome).toBe(reason);
      expect(calls).toHaveLength(1);
      expect(delays).toEqual([]);
    });
  });

  describe("retries", () => {
    it("retries a status it would not retry when the server says x-should-retry: true", async () => {
      const { transport, calls } = transportOver([
        json(
          400,
          { error: { code: "busy", message: "try again" } },
          { headers: { "x-should-retry": "true" } },
        ),
        json(200, { ok: true }),
      ]);

      await expect(transport.request({ method: "GET", path: "/v1/health" })).resolves.toEqual({
        ok: true,
      });
      expect(calls).toHaveLength(2);
    });

    // Backoff for the first retry is 500 ms (no jitter here); a server hint within 60 s wins.
    it.each([
      ["retry-after-ms over retry-after", { "retry-after-ms": "250", "retry-after": "3" }, 250],
      ["retry-after-ms 0", { "retry-after-ms": "0" }, 0],
      ["a negative retry-after-ms falls back to backoff", { "retry-after-ms": "-5" }, 500],
      ["retry-after of exactly 60 s", { "retry-after": "60" }, 60_000],
      ["retry-after over 60 s falls back to backoff", { "retry-after": "61" }, 500],
      [
        "retry-after as an HTTP date 2 s ahead",
        { "retry-after": "Tue, 01 Dec 2026 03:00:02 GMT" },
        2000,
      ],
    ])("waits as told by %s", async (_case, headers, delayMs) => {
      const { transport, delays } = transportOver(
        [
          json(503, { error: { code: "unavailable", message: "busy" } }, { headers }),
          json(200, {}),
        ],
        { now: () => Date.parse("Tue, 01 Dec 2026 03:00:00 GMT") },
      );

      await transport.request({ method: "GET", path: "/v1/health" });

      expect(delays).toEqual([delayMs]);
    });
  });
});
