import type { IncomingMessage, Server, ServerResponse } from "node:http";
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
import {
  clientErrorResponse,
  incompleteBodyResponse,
  maxRefusalsInFlight,
  refuseConnection,
} from "./socket-answers.js";

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
  const state: ServerState = { closing: false };
  // Known once the port is bound; no request can arrive before that.
  let hostCheck: ((host: string | undefined) => boolean) | undefined;
  const app = createApp({
    isAllowedHost: (hostHeader) => hostCheck?.(hostHeader) ?? true,
    ...appOptions(options),
  });
  const server = createHttpServer(app, host, options, state);
  capConnections(server, options.maxConnections ?? defaultMaxConnections);
  const { serving, answering } = trackRequests(server, state);
  answerClientErrors(server, answering);
  cutStalledBodies(server, serving, options.bodyIdleTimeoutMs ?? defaultBodyIdleTimeoutMs);

  const port = await listen(server, options.port ?? 8100, host);
  hostCheck = createHostCheck({
    listenHost: host,
    port,
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
  });
  const close = closeGracefully(server, serving, options, state);
  const closed = new Promise<void>((resolve) => {
    server.once("close", () => {
      // `closed` settles after the store is closed too.
      close().then(resolve, (error: unknown) => {
        options.onUnexpectedError?.(error);
        resolve();
      });
    });
  });
  return { url: formatUrl(host, port), port, close, closed };
}

/** What the server's parts share: whether shutdown has begun. */
interface ServerState {
  closing: boolean;
}

/** The options of `startServer` that `createApp` takes as they are (the unset ones left out). */
function appOptions(options: StartServerOptions) {
  return {
    store: options.store,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.tenantKeys ? { tenantKeys: options.tenantKeys } : {}),
    ...(options.generateRequestId ? { generateRequestId: options.generateRequestId } : {}),
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.maxResponseBytes !== undefined
      ? { maxResponseBytes: options.maxResponseBytes }
      : {}),
    ...(options.onUnexpectedError ? { onUnexpectedError: options.onUnexpectedError } : {}),
  };
}

/** Node's HTTP server over `app`, with the header and request timeouts Node enforces itself. */
function createHttpServer(
  app: ReturnType<typeof createApp>,
  host: string,
  options: StartServerOptions,
  state: ServerState,
): Server {
  const headersTimeoutMs = options.headersTimeoutMs ?? defaultHeadersTimeoutMs;
  const requestTimeoutMs = options.requestTimeoutMs ?? defaultRequestTimeoutMs;
  return createAdaptorServer({
    fetch: async (request) => {
      const response = await app.fetch(request);
      // While shutting down, tell keep-alive clients not to send another request on this socket.
      if (state.closing) response.headers.set("Connection", "close");
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
}

/**
 * The connection cap, counted here rather than by `server.maxConnections` (which closes a
 * connection past it without a word): a connection past the cap gets a 503 with Retry-After.
 * HTTP's own connection handler runs only for the connections let in.
 */
function capConnections(server: Server, maxConnections: number): void {
  const httpConnectionListeners = server.listeners("connection") as Array<(socket: Socket) => void>;
  server.removeAllListeners("connection");
  let openConnections = 0;
  let refusalsInFlight = 0;
  server.on("connection", (socket: Socket) => {
    if (openConnections >= maxConnections) {
      if (refusalsInFlight >= maxRefusalsInFlight) {
        socket.destroy();
        return;
      }
      refusalsInFlight += 1;
      socket.once("close", () => {
        refusalsInFlight -= 1;
      });
      refuseConnection(socket, maxConnections);
      return;
    }
    openConnections += 1;
    socket.once("close", () => {
      openConnections -= 1;
    });
    for (const listener of httpConnectionListeners) listener.call(server, socket);
  });
}

/**
 * The request each socket is serving, until its response is done (for the body-idle timeout and
 * the shutdown), and the response each socket is writing (for clientError: once its headers are
 * out, no other answer can be written on that socket).
 */
function trackRequests(server: Server, state: ServerState) {
  const serving = new Map<Socket, IncomingMessage>();
  const answering = new WeakMap<Socket, ServerResponse>();
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    serving.set(request.socket, request);
    answering.set(request.socket, response);
    response.once("close", () => {
      if (serving.get(request.socket) === request) serving.delete(request.socket);
    });
    response.once("finish", () => {
      // A connection that was busy when close() began becomes idle now: release it.
      if (state.closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  return { serving, answering };
}

/** Node's own 400/408/431 (a request it cannot parse, a timeout) in the envelope too. */
function answerClientErrors(server: Server, answering: WeakMap<Socket, ServerResponse>): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    // A reset connection, or one whose answer has begun, can only be closed.
    if (error.code === "ECONNRESET" || !socket.writable || answering.get(socket)?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorResponse(error));
    socket.destroySoon();
  });
}

/** A request body that stops arriving for `idleMs` gets the raw 400 and its socket is closed. */
function cutStalledBodies(
  server: Server,
  serving: Map<Socket, IncomingMessage>,
  idleMs: number,
): void {
  if (idleMs <= 0) return;
  server.setTimeout(idleMs, (socket: Socket) => {
    const request = serving.get(socket);
    // Idle between requests (keepAliveTimeout usually closed it already): close it.
    if (request === undefined) {
      socket.destroy();
      return;
    }
    // Received whole: the route is working on it, which is not the client's fault.
    if (request.complete) return;
    serving.delete(socket);
    socket.end(incompleteBodyResponse(idleMs));
    socket.destroySoon();
  });
}

/**
 * The server's `close()`: stop accepting, let in-flight requests finish (uploads get a grace
 * period, everything a deadline), then close the store. Also run when `options.signal` aborts.
 */
function closeGracefully(
  server: Server,
  serving: ReadonlyMap<Socket, IncomingMessage>,
  options: StartServerOptions,
  state: ServerState,
): () => Promise<void> {
  let closePromise: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closePromise ??= (async () => {
      state.closing = true;
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
  return close;
}
