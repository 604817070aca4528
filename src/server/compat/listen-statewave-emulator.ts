import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import {
  createStatewaveEmulator,
  type StatewaveEmulator,
  type StatewaveEmulatorOptions,
} from "./statewave-v0-7-1.js";

/** A Statewave v0.7.1 emulation listening on a port (`shared-ctx serve --compat statewave-0.7.1`). */
export interface RunningStatewaveEmulator {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  readonly emulator: StatewaveEmulator;
  /** Stops listening; in-flight requests finish. Idempotent. */
  close(): Promise<void>;
  /** Settles once closed, however that was triggered. */
  readonly closed: Promise<void>;
}

/**
 * Serves {@link createStatewaveEmulator} over HTTP on loopback, for tests and for trying
 * shared-ctx against a v0.7.1-shaped server without one. Everything is in memory.
 * @param options.port `0` picks a free one. @default 0
 */
export async function startStatewaveEmulator(
  options: StatewaveEmulatorOptions & { port?: number; host?: string; signal?: AbortSignal } = {},
): Promise<RunningStatewaveEmulator> {
  const host = options.host ?? "127.0.0.1";
  const emulator = createStatewaveEmulator(options);
  const server = createAdaptorServer({ fetch: emulator.fetch, hostname: host }) as Server;
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve((server.address() as AddressInfo).port));
  });
  let closing: Promise<void> | undefined;
  let settle: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const close = () => {
    // Node >= 19 closes idle keep-alive connections in server.close() itself.
    closing ??= new Promise<void>((resolve) => server.close(() => resolve())).then(settle);
    return closing;
  };
  if (options.signal?.aborted) void close();
  options.signal?.addEventListener("abort", () => void close(), { once: true });
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    emulator,
    close,
    closed,
  };
}
