import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import type { TenantKey } from "./api-key.js";
import { type CreateAppOptions, createApp } from "./app.js";
import { createHostCheck, isLoopbackHost } from "./host-check.js";
import { InsecureBindError } from "./insecure-bind-error.js";
import { PortInUseError } from "./port-in-use-error.js";
import {
  defaultBodyIdleTimeoutMs,
  defaultHeadersTimeoutMs,
  defaultMaxConnections,
  defaultRequestTimeoutMs,
} from "./server-limits.js";

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** Served through `createApp`; closed when the server closes (unless `closeStore: false`). */
  store: CreateAppOptions["store"] & { close(): Promise<void> };
  /** `0` picks a free port. @default 8100 (Statewave's) */
  port?: number;
  /** Loopback only unless told otherwise. @default "127.0.0.1" */
  host?: string;
  /** Require this key in `X-API-Key` (or `?api_key=`); it reaches every tenant. */
  apiKey?: string;
  /** Keys that each reach only their listed tenants (see `createApp`). @default [] */
  tenantKeys?: readonly TenantKey[];
  /**
   * Serve a non-loopback interface with no key at all. Without it such a bind throws
   * {@link InsecureBindError}: anyone on the network could read and write every tenant.
   * @default false
   */
  insecureNoAuth?: boolean;
  /** A request whose headers have not all arrived by then gets 408 and is closed. @default 10000 */
  headersTimeoutMs?: number;
  /**
   * A request not fully received (headers and body) by then gets 408 and is closed: a body
   * dribbled a byte at a time (slowloris) cannot hold a socket longer. @default 30000
   */
  requestTimeoutMs?: number;
  /**
   * A request body that stops arriving for this long (shorter than its `Content-Length`, or a
   * stalled chunked upload) gets 400 `request_body_incomplete` and the socket is closed.
   * @default 5000
   */
  bodyIdleTimeoutMs?: number;
  /**
   * Connections open at once; more are closed as soon as they are accepted, so that slow clients
   * cannot use up the process's file descriptors (keep it below `ulimit -n`). @default 512
   */
  maxConnections?: number;
  /** Aborting it shuts the server down gracefully, as `close()` does. */
  signal?: AbortSignal;
  /** Close the store after the last request finished. @default true */
  closeStore?: boolean;
  /** After this long, connections still open at shutdown are cut. @default 10000 */
  shutdownTimeoutMs?: number;
  /** Told about unexpected errors (the client gets a 500 `internal_error`). */
  onUnexpectedError?: (error: unknown) => void;
  /** Passed to `createApp`. */
  generateRequestId?: () => string;
  /** Passed to `createApp`. @default 16 MiB */
  maxBodyBytes?: number;
  /** Passed to `createApp`: the byte cap of one timeline answer. @default 16 MiB */
  maxResponseBytes?: number;
  /**
   * More `Host` names to serve besides the bound address and loopback names: `name` or
   * `name:port`, `*` for any. A loopback server refuses every other Host with 403 (DNS rebinding,
   * see `host-check.ts`); a server bound to another interface accepts any Host unless this is set.
   * @default []
   */
  allowedHosts?: readonly string[];
}

/** A running server. */
export interface RunningServer {
  /** `http://127.0.0.1:8100`: the base URL a `StatewaveClient` takes. */
  readonly url: string;
  /** The bound port (the real one when 0 was asked for). */
  readonly port: number;
  /**
   * Stops accepting connections, lets in-flight requests finish, then closes the store.
   * Idempotent: every call returns the same promise.
   */
  close(): Promise<void>;
  /** Settles when the server has shut down, however that was triggered. */
  readonly closed: Promise<void>;
}

function formatUrl(host: string, port: number): string {
  const shown = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return shown.includes(":") ? `http://[${shown}]:${port}` : `http://${shown}:${port}`;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      reject(
        error.code === "EADDRINUSE" ? new PortInUseError(port, host, { cause: error }) : error,
      );
    };
    const onListening = () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

/** How long an upload still arriving when shutdown begins may go on before it is cut. */
const shutdownUploadGraceMs = 1000;

/**
 * The raw 400 for a body that stopped arriving, in Statewave's envelope. Written to the socket
 * itself: the route is still waiting for the body, and the socket is closed right after.
 */
function incompleteBodyResponse(idleMs: number): string {
  const body = JSON.stringify({
    error: {
      code: "request_body_incomplete",
      message: `The request body stopped arriving: no byte for ${idleMs} ms before its end (is it shorter than its Content-Length?)`,
    },
  });
  return [
    "HTTP/1.1 400 Bad Request",
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/**
 * Serves an `EmbeddedStore` over Statewave's `/v1` subset with Node's HTTP server
 * (`shared-ctx serve` uses it). Binds 127.0.0.1 by default.
 *
 * @throws PortInUseError when the port is taken.
 * @throws InsecureBindError for a non-loopback `host` without any key, unless `insecureNoAuth`.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const anyKey = Boolean(options.apiKey) || (options.tenantKeys?.length ?? 0) > 0;
  if (!isLoopbackHost(host) && !anyKey && options.insecureNoAuth !== true) {
    throw new InsecureBindError(host);
  }
  const headersTimeoutMs = options.headersTimeoutMs ?? defaultHeadersTimeoutMs;
  const requestTimeoutMs = options.requestTimeoutMs ?? defaultRequestTimeoutMs;
  const bodyIdleTimeoutMs = options.bodyIdleTimeoutMs ?? defaultBodyIdleTimeoutMs;
  const requestedPort = options.port ?? 8100;
  let closing = false;
  // Known once the port is bound; no request can arrive before that.
  let hostCheck: ((host: string | undefined) => boolean) | undefined;

  const app = createApp({
    isAllowedHost: (hostHeader) => hostCheck?.(hostHeader) ?? true,
    store: options.store,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.tenantKeys ? { tenantKeys: options.tenantKeys } : {}),
    ...(options.generateRequestId ? { generateRequestId: options.generateRequestId } : {}),
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.maxResponseBytes !== undefined
      ? { maxResponseBytes: options.maxResponseBytes }
      : {}),
    ...(options.onUnexpectedError ? { onUnexpectedError: options.onUnexpectedError } : {}),
  });
  const server = createAdaptorServer({
    fetch: async (request) => {
      const response = await app.fetch(request);
      // While shutting down, tell keep-alive clients not to send another request on this socket.
      if (closing) response.headers.set("Connection", "close");
      return response;
    },
    hostname: host,
    serverOptions: {
      headersTimeout: headersTimeoutMs,
      // Node wants requestTimeout >= headersTimeout (0 = off).
      requestTimeout: requestTimeoutMs === 0 ? 0 : Math.max(requestTimeoutMs, headersTimeoutMs),
      // How often Node checks the two timeouts above (default 30 s, which would stretch them).
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(
          1000,
          Math.floor(Math.min(headersTimeoutMs || 1000, requestTimeoutMs || 1000) / 4),
        ),
      ),
    },
  }) as Server;
  server.maxConnections = options.maxConnections ?? defaultMaxConnections;
  // The request each socket is serving, until its response is done: for the body-idle timeout.
  const serving = new Map<Socket, IncomingMessage>();
  server.on("request", (request: IncomingMessage, response) => {
    serving.set(request.socket, request);
    response.once("close", () => {
      if (serving.get(request.socket) === request) serving.delete(request.socket);
    });
    response.once("finish", () => {
      // A connection that was busy when close() began becomes idle now: release it.
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  if (bodyIdleTimeoutMs > 0) {
    server.setTimeout(bodyIdleTimeoutMs, (socket: Socket) => {
      const request = serving.get(socket);
      // Idle between requests (keepAliveTimeout usually closed it already): close it.
      if (request === undefined) {
        socket.destroy();
        return;
      }
      // Received whole: the route is working on it, which is not the client's fault.
      if (request.complete) return;
      serving.delete(socket);
      socket.end(incompleteBodyResponse(bodyIdleTimeoutMs));
      socket.destroySoon();
    });
  }

  const port = await listen(server, requestedPort, host);
  hostCheck = createHostCheck({
    listenHost: host,
    port,
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
  });

  let closePromise: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closePromise ??= (async () => {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // A request still arriving a second after close() began (a slow or stalled upload) has
      // stored nothing: cut it rather than let it hold the shutdown until the deadline. A body
      // already on its way gets that second to arrive, and its request finishes normally.
      const cutUploads = setTimeout(() => {
        for (const [socket, request] of serving) {
          if (!request.complete) socket.destroy();
        }
      }, shutdownUploadGraceMs);
      cutUploads.unref();
      const deadline = setTimeout(
        () => server.closeAllConnections(),
        options.shutdownTimeoutMs ?? 10_000,
      );
      try {
        await stopped;
      } finally {
        clearTimeout(deadline);
        clearTimeout(cutUploads);
        options.signal?.removeEventListener("abort", onAbort);
      }
      if (options.closeStore ?? true) await options.store.close();
    })();
    return closePromise;
  };
  const onAbort = () => {
    close().catch((error: unknown) => options.onUnexpectedError?.(error));
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });

  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  server.once("close", () => {
    // `closed` settles after the store is closed too.
    close().then(resolveClosed, (error: unknown) => {
      options.onUnexpectedError?.(error);
      resolveClosed();
    });
  });

  return { url: formatUrl(host, port), port, close, closed };
}
