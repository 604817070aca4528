import { Command, InvalidArgumentError } from "commander";
import type { EmbeddedStore } from "../../context/embedded/embedded-store.js";
import type { PostgresStore } from "../../context/postgres/postgres-store.js";
import type { startServer } from "../../server/listen.js";
import type { CliDeps } from "../cli-deps.js";
import { FatalError } from "../fatal-error.js";

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) {
    throw new InvalidArgumentError("expected a port number 0..65535 (0 = any free port)");
  }
  return port;
}

/** A positive whole number of bytes or milliseconds, for the limit and timeout flags. */
function parsePositive(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || !Number.isSafeInteger(number)) {
    throw new InvalidArgumentError("expected a whole number of at least 1");
  }
  return number;
}

/** The parsed options of `serve`. */
interface ServeOptions {
  port: number;
  host: string;
  db?: string;
  /** `--database-url`: serve a Postgres database (replicas share it). */
  databaseUrl?: string;
  /** `--allowed-host`, once per name. */
  allowedHost?: string[];
  /** `--compat statewave-0.7.1`: an in-memory emulation of that server version, for tests. */
  compat?: string;
  /** `--max-body-bytes`: larger request bodies get a 413. */
  maxBodyBytes?: number;
  /** `--max-response-bytes`: the byte cap of one timeline answer. */
  maxResponseBytes?: number;
  /** `--statement-timeout-ms`: Postgres only. */
  statementTimeoutMs?: number;
}

const loopbackHosts = new Set(["127.0.0.1", "localhost", "::1"]);

/** `shared-ctx serve`: the embedded store over Statewave's `/v1` HTTP API. */
export function makeServeCommand(deps: CliDeps): Command {
  return new Command("serve")
    .description(
      "serve the embedded store over Statewave's /v1 HTTP API, so Statewave clients (and other machines' agents) can share it",
    )
    .option("--port <port>", "port to listen on; 0 picks a free one", parsePort, 8100)
    .option("--host <host>", "interface to bind; 0.0.0.0 exposes it to the network", "127.0.0.1")
    .option("--db <path>", "database file (default: $SHARED_CTX_DB or .shared-ctx/store.db)")
    .option(
      "--database-url <url>",
      "serve a Postgres database instead of a file; any number of replicas can serve one (default: $SHARED_CTX_DATABASE_URL)",
    )
    .option(
      "--allowed-host <name>",
      "also answer requests whose Host is this name (name or name:port; repeatable; * = any). A loopback server refuses other Hosts, against DNS rebinding",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      "--max-body-bytes <bytes>",
      "refuse request bodies larger than this with 413 (default 16777216, 16 MiB)",
      parsePositive,
    )
    .option(
      "--max-response-bytes <bytes>",
      "cut a GET /v1/timeline answer before it passes this many bytes; X-Next-Offset says where the next page starts (default 16777216, 16 MiB)",
      parsePositive,
    )
    .option(
      "--statement-timeout-ms <ms>",
      "with --database-url: a statement (or a silent database) past this answers 503 instead of hanging (default 15000)",
      parsePositive,
    )
    .option(
      "--compat <version>",
      "instead of the store, serve an in-memory emulation of a real Statewave server version, quirks included (statewave-0.7.1), to try shared-ctx against it",
      (value: string) => {
        if (value !== "statewave-0.7.1") throw new InvalidArgumentError("expected statewave-0.7.1");
        return value;
      },
    )
    .addHelpText(
      "after",
      [
        "",
        "Environment:",
        "  SHARED_CTX_API_KEY   require this key in X-API-Key (or ?api_key=) on every /v1 request",
        "  SHARED_CTX_DB        database file, when --db is not given",
        "  SHARED_CTX_DATABASE_URL  postgres://… to serve instead of a file (--db wins over it)",
        "",
        "Clients: STATEWAVE_URL=http://127.0.0.1:8100 makes shared-ctx (and Statewave's SDKs) use it.",
        "X-Tenant-ID isolates tenants. Ctrl-C finishes in-flight requests, then closes the database.",
        "",
        "Examples:",
        "  $ shared-ctx serve",
        "  $ SHARED_CTX_API_KEY=s3cret shared-ctx serve --port 9000 --db /tmp/team.db",
        "  $ curl -s http://127.0.0.1:8100/healthz",
      ].join("\n"),
    )
    .action(async (options: ServeOptions) => {
      if (options.compat !== undefined) {
        const { startStatewaveEmulator } = await import(
          "../../server/compat/listen-statewave-emulator.js"
        );
        const emulation = await startStatewaveEmulator({
          port: options.port,
          host: options.host,
          ...(deps.signal ? { signal: deps.signal } : {}),
        });
        deps.stdout.write(
          `shared-ctx serve: emulating ${options.compat} (in memory) on ${emulation.url}\n  clients:  STATEWAVE_URL=${emulation.url}\n`,
        );
        await emulation.closed;
        deps.stdout.write("shared-ctx serve: stopped\n");
        return;
      }
      // Loaded here, not at the top: hono and the store's driver are this command's alone.
      const [{ resolveDbPath }, { EmbeddedStore }, { startServer }, { PortInUseError }] =
        await Promise.all([
          import("../../context/store-location.js"),
          import("../../context/embedded/embedded-store.js"),
          import("../../server/listen.js"),
          import("../../server/port-in-use-error.js"),
        ]);
      // serve always serves an embedded file, whatever STATEWAVE_URL says.
      const databaseUrl =
        options.databaseUrl ??
        (options.db === undefined ? deps.env.SHARED_CTX_DATABASE_URL || undefined : undefined);
      const apiKey = deps.env.SHARED_CTX_API_KEY || undefined;
      let store: EmbeddedStore | PostgresStore;
      let path: string;
      if (databaseUrl !== undefined) {
        const { PostgresStore } = await import("../../context/postgres/postgres-store.js");
        const postgres = new PostgresStore({
          url: databaseUrl,
          ...(options.statementTimeoutMs !== undefined
            ? { statementTimeoutMs: options.statementTimeoutMs }
            : {}),
        });
        path = postgres.location;
        try {
          // Checked before listening: a database that is down is named now, not on the first request.
          await postgres.connect();
        } catch (error) {
          await postgres.close();
          const reason = error instanceof Error ? error.message : String(error);
          throw new FatalError(`cannot open the store: ${reason}`, { cause: error });
        }
        store = postgres;
      } else {
        path = resolveDbPath({ db: options.db, env: deps.env, cwd: deps.cwd });
        try {
          // Concurrent clients' creates share commits, each acknowledged only once committed.
          // quick_check at start: a damaged file is named now, not by a 500 on some request.
          store = new EmbeddedStore({ path, groupCommit: true, checkIntegrity: true });
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new FatalError(`cannot open the store at ${path}: ${reason}`, { cause: error });
        }
      }
      let server: Awaited<ReturnType<typeof startServer>>;
      try {
        server = await startServer({
          store,
          port: options.port,
          host: options.host,
          ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
          ...(apiKey ? { apiKey } : {}),
          ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
          ...(options.maxResponseBytes !== undefined
            ? { maxResponseBytes: options.maxResponseBytes }
            : {}),
          signal: deps.signal,
          onUnexpectedError: (error) => {
            const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
            deps.stderr.write(`shared-ctx serve: internal error: ${message}\n`);
          },
        });
      } catch (error) {
        await store.close();
        if (error instanceof PortInUseError) throw new FatalError(error.message, { cause: error });
        throw error;
      }
      deps.stdout.write(
        [
          `shared-ctx serve: listening on ${server.url}`,
          `  database: ${path}`,
          `  API key:  ${apiKey ? "required (X-API-Key, from SHARED_CTX_API_KEY)" : "not required (set SHARED_CTX_API_KEY to require one)"}`,
          `  clients:  STATEWAVE_URL=${server.url}`,
          "",
        ].join("\n"),
      );
      if (!loopbackHosts.has(options.host) && !apiKey) {
        deps.stderr.write(
          `shared-ctx serve: warning: ${options.host} is reachable from the network and no API key is set (SHARED_CTX_API_KEY).\n`,
        );
      }
      await server.closed;
      deps.stdout.write("shared-ctx serve: stopped; database closed\n");
    });
}
