import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { type CreateAppOptions, createApp } from "./app.js";
import { createHostCheck } from "./host-check.js";
import { PortInUseError } from "./port-in-use-error.js";

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** Served through `createApp`; closed when the server closes (unless `closeStore: false`). */
  store: CreateAppOptions["store"] & { close(): Promise<void> };
  /** `0` picks a free port. @default 8100 (Statewave's) */
  port?: number;
  /** Loopback only unless told otherwise. @default "127.0.0.1" */
  host?: string;
  /** Require this key in `X-API-Key` (or `?api_key=`). */
  apiKey?: string;
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

/**
 * Serves an `EmbeddedStore` over Statewave's `/v1` subset with Node's HTTP server
 * (`shared-ctx serve` uses it). Binds 127.0.0.1 by default.
 *
 * @throws PortInUseError when the port is taken.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const requestedPort = options.port ?? 8100;
  let closing = false;
  // Known once the port is bound; no request can arrive before that.
  let hostCheck: ((host: string | undefined) => boolean) | undefined;

  const app = createApp({
    isAllowedHost: (hostHeader) => hostCheck?.(hostHeader) ?? true,
    store: options.store,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
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
  }) as Server;
  server.on("request", (_request, response) => {
    response.once("finish", () => {
      // A connection that was busy when close() began becomes idle now: release it.
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });

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
      const deadline = setTimeout(
        () => server.closeAllConnections(),
        options.shutdownTimeoutMs ?? 10_000,
      );
      try {
        await stopped;
      } finally {
        clearTimeout(deadline);
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
