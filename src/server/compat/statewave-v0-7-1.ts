import { randomBytes, randomUUID } from "node:crypto";
import { route } from "./emulator-routes.js";
import type { EmulatorState } from "./emulator-store.js";
import { Fail, internalError, isObject } from "./emulator-validation.js";
import type { Json } from "./statewave-heuristic.js";

export { pydanticTimestamp } from "./emulator-store.js";

/**
 * An emulation of a real Statewave v0.7.1 server for tests, answering as the recorded fixtures
 * (`../shared/fixtures/statewave-v0.7.1/`) and the contract (§3–§9) say, quirks included:
 * memories of Statewave's kinds only (the heuristic compiler: `episode_summary` plus regex
 * `profile_fact`s) with `metadata: {}`; supersede by word overlap, never by target; search newest
 * first; the timeline capped at the OLDEST 100 episodes and memories, ignoring `limit`/`offset`;
 * context from the 30 oldest episodes; `total` = page length; the bare-string 404 of an unknown
 * compile job; JSONB key order; a 500 for a non-JSON Content-Type or a NUL character; no tenant
 * header = every tenant. In memory, single process. Not a product: `shared-ctx serve` is.
 */

/** Options of {@link createStatewaveEmulator}. */
export interface StatewaveEmulatorOptions {
  /** Clock in ms since the epoch, for `created_at`. @default Date.now */
  now?: () => number;
  /** Episode and memory ids. @default crypto.randomUUID */
  generateId?: () => string;
  /** Compile job ids (8 hex digits in v0.7.1). @default 8 random hex digits */
  generateJobId?: () => string;
  /** Request ids (16 hex digits). @default random */
  generateRequestId?: () => string;
}

/** A running emulation: a fetch handler, and counters for tests. */
export interface StatewaveEmulator {
  /** Answers one request as Statewave v0.7.1 would. */
  fetch(request: Request): Promise<Response>;
  /** `typeof fetch` over {@link fetch}, for a client's `fetch` option (no socket needed). */
  readonly clientFetch: typeof fetch;
  /** Requests answered so far, by `METHOD /path` (no query). */
  readonly requests: Map<string, number>;
}

/**
 * Creates an emulated Statewave v0.7.1 (see the module comment). Every call of `fetch` is
 * answered from memory; nothing persists.
 */
export function createStatewaveEmulator(options: StatewaveEmulatorOptions = {}): StatewaveEmulator {
  const generateRequestId = options.generateRequestId ?? (() => randomBytes(8).toString("hex"));
  const state: EmulatorState = {
    episodes: [],
    memories: [],
    jobs: new Map(),
    now: options.now ?? Date.now,
    generateId: options.generateId ?? randomUUID,
    generateJobId: options.generateJobId ?? (() => randomBytes(4).toString("hex")),
    seq: 0,
    lastTime: 0,
  };
  const requests = new Map<string, number>();

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const name = `${request.method} ${url.pathname}`;
    requests.set(name, (requests.get(name) ?? 0) + 1);
    const requestId = request.headers.get("x-request-id") ?? generateRequestId();
    const tenantHeader = request.headers.get("x-tenant-id");
    const tenant = tenantHeader === null ? undefined : tenantHeader;
    let status: number;
    let body: unknown;
    try {
      ({ status, body } = await route(state, request, url, tenant));
    } catch (error) {
      const failure = error instanceof Fail ? error : new Fail(500, internalError());
      status = failure.status;
      body = failure.body;
      // The exception handlers add the request id to the envelope (not to the bare job 404).
      const envelope = isObject(body as Json) ? (body as { error?: unknown }).error : undefined;
      if (isObject(envelope as Json) && status !== 500) {
        body = { error: { ...(envelope as object), request_id: requestId } };
      }
      if (status === 500) {
        // Produced outside the request-id middleware: no header (contract §3).
        return Response.json(
          {
            error: {
              code: "internal_error",
              message: "An unexpected error occurred",
              request_id: requestId,
            },
          },
          { status },
        );
      }
    }
    return Response.json(body, { status, headers: { "X-Request-ID": requestId } });
  }

  return {
    fetch: handle,
    clientFetch: (input, init) => handle(new Request(input, init)),
    requests,
  };
}
