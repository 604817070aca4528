import { messageOf } from "../../errors.js";
import { StatewaveAPIError } from "./errors/statewave-api-error.js";
import { StatewaveConnectionError } from "./errors/statewave-connection-error.js";
import { StatewaveTimeoutError } from "./errors/statewave-timeout-error.js";

/** Waits `ms`, or rejects with the signal's reason when it is aborted first. */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** How the transport talks to one server; everything non-deterministic is injectable. */
export interface TransportSettings {
  /** Without a trailing `/`. */
  baseUrl: string;
  apiKey?: string;
  tenantId?: string;
  timeoutMs: number;
  maxRetries: number;
  fetch: typeof fetch;
  delay: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  now: () => number;
  /** First backoff in ms, doubled per attempt. @default 500 */
  backoffBaseMs?: number;
  /** Backoff cap in ms. @default 8000 */
  backoffMaxMs?: number;
  /** Subtract up to 25 % at random from each backoff. @default true */
  jitter?: boolean;
  /** Statuses to retry. @default 408, 409, 429 and every 5xx */
  retryOnStatus?: ReadonlySet<number>;
}

/** One HTTP call. */
export interface TransportRequest {
  method: "GET" | "POST" | "DELETE";
  path: string;
  /** A list is sent as the name repeated (`target=a&target=b`). */
  query?: Record<string, string | number | boolean | readonly string[] | undefined>;
  body?: unknown;
  signal?: AbortSignal;
  /** Overrides the client's `maxRetries` for this call (the watch loop retries by itself). */
  maxRetries?: number;
}

/** Retry-After within a minute is honoured (openai-node's rule); a longer one falls back to backoff. */
const maxRetryAfterMs = 60_000;

function retryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: undefined, returned below (a `return` here would be a block no test can tell from
    // an empty one).
  }
  return undefined;
}

/** Node's network error codes, in words (a Map: the code comes from outside). */
const networkErrorText = new Map([
  ["ECONNREFUSED", "connection refused"],
  ["ECONNRESET", "connection reset"],
  ["ENOTFOUND", "host not found"],
  ["EAI_AGAIN", "host lookup failed"],
  ["EHOSTUNREACH", "host unreachable"],
  ["ETIMEDOUT", "connection timed out"],
]);

/** Why a connection failed, in words: `connection refused (ECONNREFUSED)`. */
function describeConnectionFailure(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = isRecord(cause) && typeof cause.code === "string" ? cause.code : undefined;
  if (code) return `${networkErrorText.get(code) ?? "connection failed"} (${code})`;
  return messageOf(cause);
}

/**
 * Statewave's error envelope -> `StatewaveAPIError`, as the SDK reads it: `error.code` when it is a
 * string, otherwise code `"unknown"` (contract §3).
 */
function toApiError(
  status: number,
  statusText: string,
  body: unknown,
  headerRequestId: string | null,
) {
  const error = isRecord(body) ? body.error : undefined;
  if (isRecord(error) && typeof error.code === "string") {
    const requestId =
      typeof error.request_id === "string" ? error.request_id : (headerRequestId ?? undefined);
    return new StatewaveAPIError(
      status,
      error.code,
      typeof error.message === "string" ? error.message : statusText,
      error.details,
      requestId,
    );
  }
  const message = typeof error === "string" ? error : statusText || `HTTP ${status}`;
  return new StatewaveAPIError(status, "unknown", message, undefined, headerRequestId ?? undefined);
}

/**
 * HTTP to a Statewave server with the official SDK's conventions and openai-node's retry
 * discipline: retries 408/409/429/5xx and connection failures with exponential backoff
 * (0.5 s doubling to 8 s, minus up to 25 % jitter), honours `Retry-After` up to 60 s, and gives
 * up after `maxRetries`. A caller's abort is never retried.
 */
export class StatewaveTransport {
  readonly #settings: TransportSettings;

  constructor(settings: TransportSettings) {
    this.#settings = settings;
  }

  /** The base URL, for messages. */
  get baseUrl(): string {
    return this.#settings.baseUrl;
  }

  /**
   * Sends the request and returns the parsed JSON of a 2xx answer.
   * @throws StatewaveAPIError for an error status (after retries), StatewaveConnectionError or
   *   StatewaveTimeoutError when the server cannot be reached, the signal's reason on abort.
   */
  async request(request: TransportRequest): Promise<unknown> {
    const maxRetries = request.maxRetries ?? this.#settings.maxRetries;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.#attempt(request);
      if (outcome.kind === "ok") return outcome.body;
      const retriesLeft = attempt < maxRetries;
      if (!retriesLeft || !outcome.retry) throw outcome.error;
      await this.#settings.delay(this.#retryDelayMs(attempt, outcome.headers), request.signal);
    }
  }

  #url(request: TransportRequest): string {
    const url = new URL(`${this.#settings.baseUrl}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value === undefined) continue;
      if (Array.isArray(value)) {
        for (const item of value) url.searchParams.append(name, item);
        continue;
      }
      url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  #headers(hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = { Accept: "application/json" };
    // Statewave 500s on a body without this (contract §1).
    if (hasBody) headers["Content-Type"] = "application/json";
    if (this.#settings.apiKey) headers["X-API-Key"] = this.#settings.apiKey;
    if (this.#settings.tenantId !== undefined) headers["X-Tenant-ID"] = this.#settings.tenantId;
    return headers;
  }

  async #attempt(
    request: TransportRequest,
  ): Promise<
    | { kind: "ok"; body: unknown }
    | { kind: "error"; error: Error; retry: boolean; headers?: Headers }
  > {
    const { timeoutMs } = this.#settings;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onCallerAbort = () => controller.abort(request.signal?.reason);
    if (request.signal?.aborted) onCallerAbort();
    // No `once`: the `finally` below removes the listener, and a signal fires "abort" only once.
    request.signal?.addEventListener("abort", onCallerAbort);
    try {
      const hasBody = request.body !== undefined;
      const response = await this.#settings.fetch(this.#url(request), {
        method: request.method,
        headers: this.#headers(hasBody),
        ...(hasBody ? { body: JSON.stringify(request.body) } : {}),
        signal: controller.signal,
      });
      const text = await response.text();
      const body = parseJson(text);
      if (response.ok) {
        if (body === undefined) {
          return {
            kind: "error",
            retry: false,
            error: new StatewaveAPIError(
              response.status,
              "invalid_response",
              "Response is not JSON",
            ),
          };
        }
        return { kind: "ok", body };
      }
      const shouldRetryHeader = response.headers.get("x-should-retry");
      return {
        kind: "error",
        error: toApiError(
          response.status,
          response.statusText,
          body,
          response.headers.get("x-request-id"),
        ),
        retry:
          shouldRetryHeader === "true" ||
          (shouldRetryHeader !== "false" &&
            (this.#settings.retryOnStatus?.has(response.status) ?? retryable(response.status))),
        headers: response.headers,
      };
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      if (timedOut) {
        return {
          kind: "error",
          retry: true,
          error: new StatewaveTimeoutError(this.#settings.baseUrl, timeoutMs, { cause: error }),
        };
      }
      return {
        kind: "error",
        retry: true,
        error: new StatewaveConnectionError(
          this.#settings.baseUrl,
          describeConnectionFailure(error),
          { cause: error },
        ),
      };
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", onCallerAbort);
    }
  }

  #retryDelayMs(attempt: number, headers: Headers | undefined): number {
    const retryAfterMsHeader = headers?.get("retry-after-ms");
    const retryAfterMs = Number.parseFloat(retryAfterMsHeader ?? "");
    let fromServer = Number.isFinite(retryAfterMs) ? retryAfterMs : undefined;
    const retryAfter = headers?.get("retry-after");
    if (fromServer === undefined && retryAfter) {
      const seconds = Number.parseFloat(retryAfter);
      fromServer = Number.isFinite(seconds)
        ? seconds * 1000
        : Date.parse(retryAfter) - this.#settings.now();
    }
    if (fromServer !== undefined && Number.isFinite(fromServer) && fromServer >= 0) {
      if (fromServer <= maxRetryAfterMs) return fromServer;
    }
    const base = this.#settings.backoffBaseMs ?? 500;
    const backoff = Math.min(base * 2 ** attempt, this.#settings.backoffMaxMs ?? 8000);
    const jitter = (this.#settings.jitter ?? true) ? 1 - this.#settings.random() * 0.25 : 1;
    return backoff * jitter;
  }
}
