import { randomBytes } from "node:crypto";
import { Hono, type MiddlewareHandler } from "hono";
import type { ContextStore } from "../context/context-store.js";
import { CompileEpisodeError } from "../context/errors/compile-episode-error.js";
import { CompileJobNotFoundError } from "../context/errors/compile-job-not-found-error.js";
import { StoreClosedError } from "../context/errors/store-closed-error.js";
import { StoreDamagedError } from "../context/errors/store-damaged-error.js";
import { StoreValidationError } from "../context/errors/store-validation-error.js";
import { PostgresConnectionError } from "../context/postgres/errors/postgres-connection-error.js";
import { camelKeyToSnake } from "../context/wire-format.js";
import { createKeyring, publicPaths, type TenantKey } from "./api-key.js";
import { defaultMaxResponseBytes } from "./bounded-timeline.js";
import { registerHookRoutes } from "./hook-routes.js";
import { HttpError } from "./http-error.js";
import { registerMcpRoutes } from "./mcp-routes.js";
import { defaultMaxBodyBytes } from "./read-json-body.js";
import type { ServerEnv } from "./server-env.js";
import { registerV1Routes } from "./v1-routes.js";

/** What the server needs from a store: a view per tenant. `EmbeddedStore` is one. */
export interface TenantScopedStore {
  /** A view of the same data scoped to one tenant (`null` = the default tenant). */
  forTenant(tenantId: string | null): ContextStore;
}

/** Options of {@link createApp}. */
export interface CreateAppOptions {
  /** The store to serve, usually an `EmbeddedStore`. The app never closes it. */
  store: TenantScopedStore;
  /**
   * When set (or `tenantKeys` is), every non-health request needs a key in `X-API-Key` or
   * `?api_key=`. This key reaches every tenant.
   */
  apiKey?: string;
  /**
   * Keys that each reach only their listed tenants: a request with such a key must name one of
   * them in `X-Tenant-ID`, else 403 `tenant_not_allowed`. @default []
   */
  tenantKeys?: readonly TenantKey[];
  /** Id for a request that has no `X-Request-ID`. @default 16 random lowercase hex digits, as Statewave */
  generateRequestId?: () => string;
  /** Larger request bodies get a 413. @default 16 MiB (see `defaultMaxBodyBytes`) */
  maxBodyBytes?: number;
  /**
   * The most bytes of JSON one `GET /v1/timeline` answer holds; past it the answer is cut and
   * `X-Next-Offset` names the next page. @default 16 MiB (see `defaultMaxResponseBytes`)
   */
  maxResponseBytes?: number;
  /** Told about every error that became a 500, for logging; the client only sees `internal_error`. */
  onUnexpectedError?: (error: unknown) => void;
  /**
   * Whether to serve a request with this `Host` header (`undefined`: none sent); others get 403
   * `host_not_allowed`. `startServer` passes `createHostCheck` (see `host-check.ts`: DNS rebinding).
   * @default every Host is served
   */
  isAllowedHost?: (host: string | undefined) => boolean;
  /** The version `/mcp` reports in the MCP handshake. @default "0.0.0" */
  mcpVersion?: string;
  /** Clock, in ms, for how long `/readyz` fails after a full disk. @default performance.now */
  now?: () => number;
}

/** The longest `X-Tenant-ID`, in characters (code points), as long as a subject id may be. */
export const maxTenantIdLength = 256;

/**
 * Refuses an `X-Tenant-ID` longer than {@link maxTenantIdLength} characters, or
 * holds a control character (a tab, C1 controls; HTTP itself keeps NUL out): a tenant id is a name, and one the stores would each
 * treat their own way is refused before either store sees it. An empty one is a tenant of its own, as before.
 * @throws HttpError 422 `validation_error` at `["header", "x-tenant-id"]`
 */
function checkTenantId(tenantId: string): void {
  let length = 0;
  for (const _character of tenantId) length += 1;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
  const control = /[\u0000-\u001f\u007f-\u009f]/u.test(tenantId);
  if (length <= maxTenantIdLength && !control) return;
  throw HttpError.validation([
    {
      type: control ? "string_pattern_mismatch" : "string_too_long",
      loc: ["header", "x-tenant-id"],
      msg: control
        ? "X-Tenant-ID must not contain control characters"
        : `X-Tenant-ID must be at most ${maxTenantIdLength} characters`,
      input: tenantId.slice(0, 300),
      ...(control ? {} : { ctx: { max_length: maxTenantIdLength } }),
    },
  ]);
}

/** Random bytes drawn 4 KiB at a time: one `randomBytes` call per request was ~3 % of an ingest's CPU. */
let randomPool = Buffer.alloc(0);
let randomPoolOffset = 0;
const defaultRequestId = () => {
  if (randomPoolOffset + 8 > randomPool.length) {
    randomPool = randomBytes(4096);
    randomPoolOffset = 0;
  }
  randomPoolOffset += 8;
  return randomPool.toString("hex", randomPoolOffset - 8, randomPoolOffset);
};

/**
 * Store errors that mean "bad input" or "not there", mapped to 4xx; anything else is a 500.
 * `where` is where the request carried its input: the routes validate first, so a store's own
 * refusal is a fallback, but it still names the right place (`query` for a GET, `path` for a
 * DELETE) with the wire's snake_case name.
 */
function toHttpError(error: unknown, where: "body" | "query" | "path"): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (error instanceof CompileJobNotFoundError) {
    return new HttpError(404, { code: "not_found", message: "Job not found or expired" });
  }
  if (error instanceof StoreValidationError) {
    const loc = [
      where,
      ...error.field
        .split(/[.[\]]+/)
        .filter(Boolean)
        .map(camelKeyToSnake),
    ];
    return HttpError.validation([
      { type: "value_error", loc, msg: error.message, ctx: { expected: error.expected } },
    ]);
  }
  if (error instanceof CompileEpisodeError) {
    return new HttpError(422, {
      code: "compile_failed",
      message: error.message,
      details: {
        subject_id: error.subjectId,
        memories_created: error.memoriesCreated,
        skipped_episodes: error.skipped.map((skipped) => ({
          episode_id: skipped.episodeId,
          type: skipped.type,
          reason: skipped.reason,
        })),
      },
    });
  }
  if (error instanceof StoreClosedError) {
    return new HttpError(503, { code: "service_unavailable", message: "The store is closed" });
  }
  if (error instanceof PostgresConnectionError) {
    // The database behind this replica is unreachable: retryable, and nothing internal leaks.
    return new HttpError(503, {
      code: "service_unavailable",
      message: "The database is unavailable",
    });
  }
  const code = storageCode(error);
  if (code === "SQLITE_FULL" || code === "53100") {
    // Nothing was written; the client may retry once space is freed. /readyz fails meanwhile.
    return new HttpError(507, {
      code: "insufficient_storage",
      message: "The store's disk is full; nothing was written. Retry once space is freed.",
    });
  }
  if (
    error instanceof StoreDamagedError ||
    code?.startsWith("SQLITE_CORRUPT") ||
    code === "SQLITE_NOTADB"
  ) {
    return new HttpError(503, {
      code: "service_unavailable",
      message: "The store's database is damaged; its operator must restore it",
    });
  }
  return undefined;
}

/** The driver's error code of a store error (SQLite's `SQLITE_FULL`, a Postgres SQLSTATE), if any. */
function storageCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code: unknown = Reflect.get(error, "code");
  return typeof code === "string" ? code : undefined;
}

/** How long after a full disk `/readyz` fails when no write has succeeded since. */
const storageFullReadyMs = 10_000;

/**
 * The store's view of the request's tenant. A tenant id the stores refuse (over 256 characters,
 * U+0000) is a 422 naming the header, before any route runs.
 */
function tenantStore(store: TenantScopedStore, tenantId: string | null): ContextStore {
  try {
    return store.forTenant(tenantId);
  } catch (error) {
    if (!(error instanceof StoreValidationError)) throw error;
    throw HttpError.validation([
      {
        type: "value_error",
        loc: ["header", "x-tenant-id"],
        msg: error.message,
        ctx: { expected: error.expected },
      },
    ]);
  }
}

/**
 * The Statewave `/v1` subset over a tenant-scoped store, as a Hono app: `app.fetch(Request)`
 * answers with a `Response` (contract §5, §14). Middleware order follows Statewave:
 * request id -> API key -> tenant -> route; one error handler writes every error envelope.
 */
export function createApp(options: CreateAppOptions): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  app.use(requestIdMiddleware(options.generateRequestId ?? defaultRequestId));
  if (options.isAllowedHost) app.use(hostCheckMiddleware(options.isAllowedHost));
  app.use(keyAndTenantMiddleware(options));
  const storage = watchStorageFull(options.now ?? (() => performance.now()));
  app.use(storage.middleware);
  registerV1Routes(app, {
    storageProblem: storage.problem,
    maxBodyBytes: options.maxBodyBytes ?? defaultMaxBodyBytes,
    maxResponseBytes: options.maxResponseBytes ?? defaultMaxResponseBytes,
    readinessStore: () => options.store.forTenant(null),
  });
  // The edit hooks and the MCP server over HTTP (issue 38): same Host check, key and tenant.
  registerHookRoutes(app, { maxBodyBytes: options.maxBodyBytes ?? defaultMaxBodyBytes });
  registerMcpRoutes(app, options.mcpVersion ? { version: options.mcpVersion } : {});

  app.notFound((c) =>
    renderError(
      new HttpError(404, { code: "http_error", message: "Not Found" }),
      c.get("requestId"),
    ),
  );

  app.onError((error, c) => {
    const method = c.req.method;
    let httpError = toHttpError(
      error,
      method === "GET" ? "query" : method === "DELETE" ? "path" : "body",
    );
    if (!httpError) {
      options.onUnexpectedError?.(error);
      httpError = new HttpError(500, {
        code: "internal_error",
        message: "An unexpected error occurred",
      });
    }
    return renderError(httpError, c.get("requestId"));
  });

  return app;
}

/** The caller's `X-Request-ID`, or a new one, on the context and on the answer. */
function requestIdMiddleware(generateRequestId: () => string): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const requestId = c.req.header("x-request-id") || generateRequestId();
    c.set("requestId", requestId);
    await next();
    c.res.headers.set("X-Request-ID", requestId);
  };
}

/** A request addressed to a Host the server does not answer to is refused (DNS rebinding). */
function hostCheckMiddleware(
  isAllowedHost: NonNullable<CreateAppOptions["isAllowedHost"]>,
): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const host = c.req.header("host");
    if (!isAllowedHost(host)) {
      const shown = host === undefined ? "(none)" : JSON.stringify(host.slice(0, 200));
      throw new HttpError(403, {
        code: "host_not_allowed",
        message: `Host ${shown} is not allowed. This server answers only requests addressed to its own loopback address, so that a web page cannot reach it through DNS rebinding; start it with --allowed-host <name> to accept another name.`,
      });
    }
    await next();
  };
}

/**
 * The API key checked (when keys are required) against the tenant named, then the tenant's
 * store set on the context: the routes only ever see their own tenant.
 */
function keyAndTenantMiddleware(options: CreateAppOptions): MiddlewareHandler<ServerEnv> {
  const keysRequired = Boolean(options.apiKey) || (options.tenantKeys?.length ?? 0) > 0;
  const keyring = createKeyring({
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.tenantKeys ? { tenantKeys: options.tenantKeys } : {}),
  });
  return async (c, next) => {
    const tenantId = c.req.header("x-tenant-id") ?? null;
    let authenticated = false;
    if (keysRequired) {
      const presented = c.req.header("x-api-key") || c.req.query("api_key");
      const grant = presented ? keyring(presented) : undefined;
      authenticated = grant !== undefined;
      if (!publicPaths.has(c.req.path)) authorize(presented, grant, tenantId);
    }
    // After the key, as Statewave orders its checks: an unauthenticated caller learns nothing more.
    if (tenantId !== null && !publicPaths.has(c.req.path)) checkTenantId(tenantId);
    c.set("authenticated", authenticated);
    // No header = the default tenant, which never sees another tenant's rows (unlike Statewave, §14).
    c.set("store", tenantStore(options.store, tenantId));
    await next();
  };
}

/**
 * A key must be presented, known, and (for a tenant key) reach the tenant named.
 * @throws HttpError 401 without a key, 403 for an unknown key or a tenant it does not reach.
 */
function authorize(
  presented: string | undefined,
  grant: ReturnType<ReturnType<typeof createKeyring>>,
  tenantId: string | null,
): void {
  if (!presented) {
    throw new HttpError(401, {
      code: "missing_api_key",
      message: "X-API-Key header is required.",
      includeRequestId: false,
    });
  }
  if (!grant) {
    throw new HttpError(403, {
      code: "invalid_api_key",
      message: "Invalid API key.",
      includeRequestId: false,
    });
  }
  // A tenant key is authorisation, not only scoping: it reaches its own tenants alone.
  if (grant.kind === "tenants" && (tenantId === null || !grant.tenants.has(tenantId))) {
    throw new HttpError(403, {
      code: "tenant_not_allowed",
      message:
        tenantId === null
          ? "This API key is bound to tenants; name one of them in X-Tenant-ID."
          : "This API key does not authorise the tenant named in X-Tenant-ID.",
    });
  }
}

/**
 * A full disk fails readiness until a write succeeds again, or for 10 s (then the next
 * refused write fails it again): a balancer moves traffic away while it lasts.
 */
function watchStorageFull(now: () => number): {
  middleware: MiddlewareHandler<ServerEnv>;
  problem: () => string | undefined;
} {
  let storageFullAt: number | undefined;
  return {
    middleware: async (c, next) => {
      await next();
      if (c.req.method === "POST" && c.res.status === 507) storageFullAt = now();
      else if (c.req.method === "POST" && c.res.status < 300) storageFullAt = undefined;
    },
    problem: () =>
      storageFullAt !== undefined && now() - storageFullAt < storageFullReadyMs
        ? "the disk is full: writes are refused"
        : undefined,
  };
}

/** Statewave's error envelope (contract §3), with the request id in the body and the header. */
function renderError(httpError: HttpError, requestId: string | undefined): Response {
  const body = {
    error: {
      code: httpError.code,
      message: httpError.message,
      ...(httpError.details !== undefined ? { details: httpError.details } : {}),
      ...(httpError.includeRequestId && requestId ? { request_id: requestId } : {}),
    },
  };
  // A string body keeps @hono/node-server on its fast path.
  const response = new Response(JSON.stringify(body), {
    status: httpError.status,
    headers: { "Content-Type": "application/json", ...httpError.headers },
  });
  if (requestId) response.headers.set("X-Request-ID", requestId);
  return response;
}
