import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type ListenOptions,
  listenForChanges,
} from "../../../src/context/postgres/listen-connection.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("listen-connection.e2e.test.ts") !== undefined;

/** A lowercase channel per test, so no two tests hear each other. */
const freshChannel = () => `t_${randomUUID().replaceAll("-", "").slice(0, 12)}`;

/** Waits for what the LISTEN connection does on its own time: connect, reconnect, deliver. */
const eventually = (assertion: () => unknown) => vi.waitFor(assertion, { timeout: 10_000 });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(skip)("listenForChanges (the LISTEN connection)", () => {
  const postgres = usePostgres(skip);
  const stops: Array<() => void> = [];
  const admins: pg.Client[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) stop();
    for (const admin of admins.splice(0)) await admin.end();
  });

  const admin = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    admins.push(client);
    return client;
  };
  /** Backends currently LISTENing on the channel (a stopped listener leaves none). */
  const listeners = async (client: pg.Client, channel: string) => {
    const rows = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()",
      [`LISTEN ${channel}`],
    );
    return rows.rows.map((row) => row.pid);
  };
  /** A database of its own, a channel no other test uses, and an admin connection to it. */
  const freshDatabase = async () => {
    const url = await postgres.database();
    return { url, channel: freshChannel(), db: await admin(url) };
  };
  /** A listener on a fresh database and channel, once it LISTENs. */
  const startedListener = async (overrides: Partial<ListenOptions> = {}) => {
    const { url, channel, db } = await freshDatabase();
    const options = listen({ url, channel, ...overrides });
    await eventually(() => expect(options.onListening).toHaveBeenCalledTimes(1));
    return { channel, db, options };
  };
  const listen = (overrides: Partial<ListenOptions> & { url: string; channel: string }) => {
    const options = {
      reconnectDelayMs: 50,
      closed: () => false,
      ready: async () => undefined,
      onChange: vi.fn(),
      onListening: vi.fn(),
      onError: vi.fn(),
      ...overrides,
    };
    stops.push(listenForChanges(options));
    return options;
  };

  it("delivers NOTIFY payloads on its channel, and listens again after the backend is killed", async () => {
    const { channel, db, options } = await startedListener();
    await db.query(`NOTIFY ${channel}, 'first'`);
    await eventually(() => expect(options.onChange).toHaveBeenCalledWith("first"));

    const [pid] = await listeners(db, channel);
    await db.query("SELECT pg_terminate_backend($1)", [pid]);
    await eventually(() => expect(options.onListening).toHaveBeenCalledTimes(2));
    await db.query(`NOTIFY ${channel}, 'second'`);
    await eventually(() => expect(options.onChange).toHaveBeenCalledWith("second"));
    expect(options.onChange).toHaveBeenCalledTimes(2);
    expect(await listeners(db, channel)).toHaveLength(1);
    expect(options.onError).not.toHaveBeenCalled();
  }, 30_000);

  it("once stopped, closes its connection and never reconnects", async () => {
    const { channel, db, options } = await startedListener();
    stops.pop()?.();
    await eventually(async () => expect(await listeners(db, channel)).toEqual([]));
    await sleep(300);
    expect(await listeners(db, channel)).toEqual([]);
    expect(options.onListening).toHaveBeenCalledTimes(1);
  }, 30_000);

  it("does not reconnect a dropped connection once its store is closed", async () => {
    let closed = false;
    const { channel, db, options } = await startedListener({ closed: () => closed });
    closed = true;
    const [pid] = await listeners(db, channel);
    await db.query("SELECT pg_terminate_backend($1)", [pid]);
    await sleep(400);
    expect(await listeners(db, channel)).toEqual([]);
    expect(options.onListening).toHaveBeenCalledTimes(1);
  }, 30_000);

  it("stopped while still connecting, it never starts listening", async () => {
    const { url, channel, db } = await freshDatabase();
    const options = listen({ url, channel });
    stops.pop()?.();
    await sleep(800);
    expect(options.onListening).not.toHaveBeenCalled();
    expect(await listeners(db, channel)).toEqual([]);
  }, 30_000);

  it("on a store already closed, never even waits for the pool", async () => {
    const url = await postgres.database();
    const options = listen({
      url,
      channel: freshChannel(),
      closed: () => true,
      ready: vi.fn(async () => undefined),
    });
    await sleep(300);
    expect(options.ready).not.toHaveBeenCalled();
    expect(options.onListening).not.toHaveBeenCalled();
  }, 30_000);

  it("reports a pool that is not ready to onError, and retries until it is", async () => {
    const url = await postgres.database();
    const unreachable = new Error("the pool is not up yet");
    const ready = vi.fn().mockRejectedValueOnce(unreachable).mockResolvedValue(undefined);
    const options = listen({ url, channel: freshChannel(), ready });
    await eventually(() => expect(options.onListening).toHaveBeenCalledTimes(1));
    expect(options.onError).toHaveBeenCalledExactlyOnceWith(unreachable);
  }, 30_000);

  it("retries a database that does not exist yet with one connection, not one per failure event", async () => {
    const url = await postgres.database();
    const db = await admin(url);
    const name = freshChannel();
    const missing = new URL(url);
    missing.pathname = `/${name}`;
    const channel = freshChannel();
    const onError = vi.fn();
    const options = listen({ url: missing.toString(), channel, reconnectDelayMs: 100, onError });
    await eventually(() => expect(onError).toHaveBeenCalled());
    expect(String(onError.mock.calls[0]?.[0])).toContain(name);
    await db.query(`CREATE DATABASE ${name}`);
    try {
      await eventually(() => expect(options.onListening).toHaveBeenCalled());
      await sleep(500);
      expect(options.onListening).toHaveBeenCalledTimes(1);
    } finally {
      stops.pop()?.();
      await sleep(100);
      await db.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  }, 30_000);
});
