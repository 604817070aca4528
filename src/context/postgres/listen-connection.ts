import { Socket } from "node:net";
import type { Client } from "pg";

/** What {@link listenForChanges} needs from its store. */
export interface ListenOptions {
  url: string;
  channel: string;
  /** Wait before reopening a dropped connection. */
  reconnectDelayMs: number;
  /** The store is closed: stop for good. */
  closed: () => boolean;
  /** Resolves once the store's pool is up (and migrated); rejects when the server is unreachable. */
  ready: () => Promise<unknown>;
  /** A payload NOTIFY'd on the channel by any replica's commit. */
  onChange: (payload: string) => void;
  /** LISTEN took effect (first time, or after a drop): anything committed before is caught up now. */
  onListening: () => void;
  onError: (error: unknown) => void;
}

/**
 * One dedicated LISTEN connection (a pool connection would be handed to other queries), reopened
 * after a drop. Its socket is unref'd: watching never keeps a finished process alive, as with the
 * embedded store. Returns a stop function.
 */
export function listenForChanges(options: ListenOptions): () => void {
  let stopped = false;
  let client: Client | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const done = () => stopped || options.closed();
  const schedule = () => {
    if (done() || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, options.reconnectDelayMs);
    retry.unref();
  };
  const connect = async () => {
    if (done()) return;
    try {
      await options.ready();
      const { default: pg } = await import("pg");
      const next = new pg.Client({ connectionString: options.url });
      next.on("notification", (message) => {
        if (message.payload && message.channel === options.channel)
          options.onChange(message.payload);
      });
      // A dropped connection also ends it: "end" reconnects.
      next.on("error", () => undefined);
      next.on("end", () => {
        if (client === next) client = undefined;
        schedule();
      });
      await next.connect();
      if (done()) {
        await next.end().catch(() => undefined);
        return;
      }
      await next.query(`LISTEN ${options.channel}`);
      const socket = next.connection.stream;
      if (socket instanceof Socket) socket.unref();
      client = next;
      options.onListening();
    } catch (error) {
      options.onError(error);
      schedule();
    }
  };
  void connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    const current = client;
    client = undefined;
    void current?.end().catch(() => undefined);
  };
}
