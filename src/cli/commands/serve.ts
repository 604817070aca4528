import { resolve } from "node:path";
import { Command, InvalidArgumentError } from "commander";
import type { EmbeddedStore } from "../../context/embedded/embedded-store.js";
import type { PostgresStore } from "../../context/postgres/postgres-store.js";
import { messageOf } from "../../errors.js";
import type { TenantKey } from "../../server/api-key.js";
import type { startServer } from "../../server/listen.js";
import {
  defaultBodyIdleTimeoutMs,
  defaultHeadersTimeoutMs,
  defaultMaxConnections,
  defaultRequestTimeoutMs,
} from "../../server/server-limits.js";
import type { CliDeps } from "../cli-deps.js";
import { ExitCode } from "../exit-codes.js";
import { FatalError, UsageError } from "../fatal-error.js";

/**
 * A commander parser for a whole number written in digits only (no sign, point or exponent),
 * refused with `expected` unless `allowed` holds for it.
 */
function digitsParser(allowed: (value: number) => boolean, expected: string) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !allowed(value)) throw new InvalidArgumentError(expected);
    return value;
  };
}

const parseMilliseconds = digitsParser(
  (ms) => ms <= 3_600_000,
  "expected milliseconds 0..3600000 (0 = no timeout)",
);

const parseCount = digitsParser(
  (count) => count >= 1 && count <= 1_000_000,
  "expected a number 1..1000000",
);

const parsePort = digitsParser(
  (port) => port <= 65_535,
  "expected a port number 0..65535 (0 = any free port)",
);

/** A positive whole number of bytes or milliseconds, for the limit and timeout flags. */
const parsePositive = digitsParser(
  (number) => number >= 1 && Number.isSafeInteger(number),
  "expected a whole number of at least 1",
);

/** The parsed options of `serve`. */
interface ServeOptions {
  port: number;
  host: string;
  db?: string;
  /** `--database-url`: serve a Postgres database (replicas share it). */
  databaseUrl?: string;
  /** `--allowed-host`, once per name. */
  allowedHost?: string[];
  /** `--allowed-hosts a,b`: the same, comma-separated. */
  allowedHosts?: string[];
  /** `--tenant-keys <file>`: keys that each reach only their tenants. */
  tenantKeys?: string;
  /** `--insecure-no-auth`: serve a non-loopback interface without any key. */
  insecureNoAuth?: boolean;
  headersTimeout?: number;
  requestTimeout?: number;
  bodyIdleTimeout?: number;
  maxConnections?: number;
  /** `--compat statewave-0.7.1`: an in-memory emulation of that server version, for tests. */
  compat?: string;
  /** `--max-body-bytes`: larger request bodies get a 413. */
  maxBodyBytes?: number;
  /** `--max-response-bytes`: the byte cap of one timeline answer. */
  maxResponseBytes?: number;
  /** `--statement-timeout-ms`: Postgres only. */
  statementTimeoutMs?: number;
}

/**
 * The tenant keys of a `--tenant-keys` file, read only when it is a regular file of at most
 * 1 MiB (a named pipe or a device would block or never end).
 */
async function readTenantKeys(path: string): Promise<TenantKey[]> {
  const [{ readFile, stat }, { parseTenantKeys, TenantKeysFileError, maxTenantKeysFileBytes }] =
    await Promise.all([import("node:fs/promises"), import("../../server/tenant-keys-file.js")]);
  try {
    const stats = await stat(path);
    if (!stats.isFile()) throw new TenantKeysFileError(path, "not a regular file");
    if (stats.size > maxTenantKeysFileBytes) {
      throw new TenantKeysFileError(path, `larger than ${maxTenantKeysFileBytes} bytes`);
    }
    return parseTenantKeys(await readFile(path), path);
  } catch (error) {
    if (error instanceof TenantKeysFileError)
      throw new FatalError(error.message, { cause: error, exitCode: ExitCode.usage });
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new FatalError(`cannot read the tenant keys file ${path} (${code})`, {
      cause: error,
      exitCode: ExitCode.usage,
    });
  }
}

/** Why a `--host` cannot be listened on, by the system's error code; undefined for other errors. */
const hostProblems = new Map([
  ["ENOTFOUND", "the name does not resolve"],
  ["EAI_AGAIN", "the name cannot be resolved now"],
  ["EADDRNOTAVAIL", "it is not an address of this machine"],
  ["EACCES", "permission denied (ports below 1024 need privileges)"],
]);

/**
 * A listen that failed because of the `--host` (or `--port`) given is the user's input: one line
 * that names it and what to give instead (exit 2), not `unexpected error: getaddrinfo ENOTFOUND`.
 */
function listenUsageError(error: unknown, host: string, port: number): UsageError | undefined {
  const code =
    error instanceof Error && "code" in error && typeof error.code === "string"
      ? error.code
      : undefined;
  const problem = code === undefined ? undefined : hostProblems.get(code);
  if (problem === undefined) return undefined;
  return new UsageError(
    `cannot listen on --host ${host} --port ${port}: ${problem} (give an address of this machine: 127.0.0.1, ::1 or 0.0.0.0)`,
    { cause: error },
  );
}

/** The help after the options: the environment, how clients reach the server, examples. */
const serveHelpText = [
  "",
  "Environment:",
  "  SHARED_CTX_API_KEY   require this key in X-API-Key (or ?api_key=) on every /v1 request; it reaches every tenant",
  "  SHARED_CTX_TENANT_KEYS_FILE  the --tenant-keys file, when the flag is not given",
  "  SHARED_CTX_DB        database file, when --db is not given",
  "  SHARED_CTX_DATABASE_URL  postgres://… to serve instead of a file (--db wins over it)",
  "",
  "Clients: STATEWAVE_URL=http://127.0.0.1:8100 makes shared-ctx (and Statewave's SDKs) use it.",
  "Coding agents: POST /hooks/claude-code and /hooks/gemini-cli answer the edit hooks, /mcp?subject=ID is the MCP server",
  "(streamable HTTP); shared-ctx init claude-code --server URL sets Claude Code up to use them (docs/server.md).",
  "X-Tenant-ID isolates tenants; a tenant key (--tenant-keys) may name only its own tenants.",
  "A --host other than loopback needs a key (or --insecure-no-auth). Ctrl-C finishes in-flight requests, then closes the database.",
  "",
  "Examples:",
  "  $ shared-ctx serve",
  "  $ SHARED_CTX_API_KEY=s3cret shared-ctx serve --port 9000 --db /tmp/team.db",
  "  $ curl -s http://127.0.0.1:8100/healthz",
].join("\n");

/** `shared-ctx serve`: the embedded store over Statewave's `/v1` HTTP API. */
export function makeServeCommand(deps: CliDeps): Command {
  const command = new Command("serve")
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
      "--allowed-hosts <names>",
      "the same as --allowed-host, comma-separated (the Host check stays on for every bind unless one of them is *)",
      (value: string, previous: string[] = []) => [
        ...previous,
        ...value
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== ""),
      ],
    )
    .option(
      "--tenant-keys <file>",
      'JSON file of keys that each reach only their tenants: {"keys": [{"key": "…", "tenants": ["team-a"]}]} (default: $SHARED_CTX_TENANT_KEYS_FILE)',
    )
    .option(
      "--insecure-no-auth",
      "serve a non-loopback --host without any API key (refused otherwise: anyone on the network could read and write)",
    );
  return addLimitOptions(command)
    .option(
      "--compat <version>",
      "instead of the store, serve an in-memory emulation of a real Statewave server version, quirks included (statewave-0.7.1), to try shared-ctx against it",
      (value: string) => {
        if (value !== "statewave-0.7.1") throw new InvalidArgumentError("expected statewave-0.7.1");
        return value;
      },
    )
    .addHelpText("after", serveHelpText)
    .action((options: ServeOptions) => serve(options, deps));
}

/**
 * The request and socket limits, each with its default: how long a request may take to arrive,
 * how many connections, how large a body or an answer, how long a Postgres statement.
 */
function addLimitOptions(command: Command): Command {
  return command
    .option(
      "--headers-timeout <ms>",
      "a request's headers must arrive within this (408 otherwise)",
      parseMilliseconds,
      defaultHeadersTimeoutMs,
    )
    .option(
      "--request-timeout <ms>",
      "a whole request (headers and body) must arrive within this (408 otherwise)",
      parseMilliseconds,
      defaultRequestTimeoutMs,
    )
    .option(
      "--body-idle-timeout <ms>",
      "a request body that stops arriving for this long gets 400 request_body_incomplete",
      parseMilliseconds,
      defaultBodyIdleTimeoutMs,
    )
    .option(
      "--max-connections <n>",
      "connections open at once; more are closed at once (keep it below ulimit -n)",
      parseCount,
      defaultMaxConnections,
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
    );
}

/** What `serve` does with its options: an emulation when `--compat`, else the store over HTTP. */
async function serve(options: ServeOptions, deps: CliDeps): Promise<void> {
  if (options.compat !== undefined) {
    await serveEmulation(options.compat, options, deps);
    return;
  }
  const access = await readAccess(options, deps);
  const { store, path } = await openStore(options, deps);
  const server = await listen(store, access, options, deps);
  deps.stdout.write(listeningBanner(server.url, path, access));
  if (options.insecureNoAuth && !access.apiKey && !access.tenantKeys) {
    deps.stderr.write(
      `shared-ctx serve: warning: --insecure-no-auth: anyone who can reach ${options.host} can read and write every tenant.\n`,
    );
  }
  await server.closed;
  deps.stdout.write("shared-ctx serve: stopped; database closed\n");
}

/** `--compat <version>`: the in-memory emulation of a real Statewave server, until stopped. */
async function serveEmulation(version: string, options: ServeOptions, deps: CliDeps) {
  const { startStatewaveEmulator } = await import(
    "../../server/compat/listen-statewave-emulator.js"
  );
  const emulation = await startStatewaveEmulator({
    port: options.port,
    host: options.host,
    ...(deps.signal ? { signal: deps.signal } : {}),
  }).catch((error: unknown) => {
    throw listenUsageError(error, options.host, options.port) ?? error;
  });
  deps.stdout.write(
    `shared-ctx serve: emulating ${version} (in memory) on ${emulation.url}\n  clients:  STATEWAVE_URL=${emulation.url}\n`,
  );
  await emulation.closed;
  deps.stdout.write("shared-ctx serve: stopped\n");
}

/** Who may call the server: the one API key, the tenant keys (and the file they came from). */
interface ServeAccess {
  apiKey?: string | undefined;
  tenantKeys?: TenantKey[] | undefined;
  tenantKeysPath?: string | undefined;
}

/** The keys from the environment and `--tenant-keys`, read before anything is opened. */
async function readAccess(options: ServeOptions, deps: CliDeps): Promise<ServeAccess> {
  const apiKey = deps.env.SHARED_CTX_API_KEY || undefined;
  const tenantKeysPath = options.tenantKeys ?? (deps.env.SHARED_CTX_TENANT_KEYS_FILE || undefined);
  const tenantKeys =
    tenantKeysPath === undefined
      ? undefined
      : await readTenantKeys(resolve(deps.cwd, tenantKeysPath));
  return { apiKey, tenantKeys, tenantKeysPath };
}

/** The store to serve and where it lives: Postgres when a URL is given, else an embedded file. */
async function openStore(
  options: ServeOptions,
  deps: CliDeps,
): Promise<{ store: EmbeddedStore | PostgresStore; path: string }> {
  // serve always serves an embedded file, whatever STATEWAVE_URL says.
  const databaseUrl =
    options.databaseUrl ??
    (options.db === undefined ? deps.env.SHARED_CTX_DATABASE_URL || undefined : undefined);
  return databaseUrl !== undefined
    ? openPostgresStore(databaseUrl, options)
    : openEmbeddedStore(options, deps);
}

async function openPostgresStore(
  url: string,
  options: ServeOptions,
): Promise<{ store: PostgresStore; path: string }> {
  // Loaded here, not at the top: the store's driver is this command's alone.
  const { PostgresStore } = await import("../../context/postgres/postgres-store.js");
  const postgres = new PostgresStore({
    url,
    ...(options.statementTimeoutMs !== undefined
      ? { statementTimeoutMs: options.statementTimeoutMs }
      : {}),
  });
  try {
    // Checked before listening: a database that is down is named now, not on the first request.
    await postgres.connect();
  } catch (error) {
    await postgres.close();
    const reason = messageOf(error);
    throw new FatalError(`cannot open the store: ${reason}`, { cause: error });
  }
  return { store: postgres, path: postgres.location };
}

async function openEmbeddedStore(
  options: ServeOptions,
  deps: CliDeps,
): Promise<{ store: EmbeddedStore; path: string }> {
  const [{ resolveDbPath, prepareDbPath }, { EmbeddedStore }, { storeSelection }] =
    await Promise.all([
      import("../../context/store-location.js"),
      import("../../context/embedded/embedded-store.js"),
      import("../command-helpers.js"),
    ]);
  // The repository's store, as every other command finds it (see storeSelection).
  const selection = storeSelection({ db: options.db }, deps);
  const path = resolveDbPath({ db: selection.db, env: deps.env, cwd: selection.cwd });
  // Checked (and its folders made) before opening: a path that cannot work is named now.
  const { created } = prepareDbPath(path);
  for (const folder of created) deps.stderr.write(`shared-ctx serve: created folder ${folder}\n`);
  try {
    // Concurrent clients' creates share commits, each acknowledged only once committed.
    // quick_check at start: a damaged file is named now, not by a 500 on some request.
    return { store: new EmbeddedStore({ path, groupCommit: true, checkIntegrity: true }), path };
  } catch (error) {
    const reason = messageOf(error);
    throw new FatalError(`cannot open the store at ${path}: ${reason}`, { cause: error });
  }
}

/**
 * The server started over `store`; when it cannot start, the store is closed and the reason is
 * the user's (a port in use, an insecure bind, a bad host) where it is theirs.
 */
async function listen(
  store: EmbeddedStore | PostgresStore,
  access: ServeAccess,
  options: ServeOptions,
  deps: CliDeps,
): Promise<Awaited<ReturnType<typeof startServer>>> {
  // Loaded here, not at the top: hono is this command's alone.
  const [{ startServer }, { PortInUseError }, { InsecureBindError }] = await Promise.all([
    import("../../server/listen.js"),
    import("../../server/port-in-use-error.js"),
    import("../../server/insecure-bind-error.js"),
  ]);
  try {
    return await startServer({
      store,
      port: options.port,
      host: options.host,
      ...serverLimits(access, options),
      signal: deps.signal,
      onUnexpectedError: (error) => {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        deps.stderr.write(`shared-ctx serve: internal error: ${message}\n`);
      },
    });
  } catch (error) {
    await store.close();
    if (error instanceof PortInUseError) throw new FatalError(error.message, { cause: error });
    if (error instanceof InsecureBindError) {
      throw new FatalError(error.message, { cause: error, exitCode: ExitCode.usage });
    }
    throw listenUsageError(error, options.host, options.port) ?? error;
  }
}

/** The access and limit options of `startServer` that the flags set (the rest keep defaults). */
function serverLimits(access: ServeAccess, options: ServeOptions) {
  const allowedHosts = [...(options.allowedHost ?? []), ...(options.allowedHosts ?? [])];
  const { apiKey, tenantKeys } = access;
  return {
    ...(allowedHosts.length > 0 ? { allowedHosts } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(tenantKeys ? { tenantKeys } : {}),
    ...(options.insecureNoAuth ? { insecureNoAuth: true } : {}),
    ...(options.headersTimeout !== undefined ? { headersTimeoutMs: options.headersTimeout } : {}),
    ...(options.requestTimeout !== undefined ? { requestTimeoutMs: options.requestTimeout } : {}),
    ...(options.bodyIdleTimeout !== undefined
      ? { bodyIdleTimeoutMs: options.bodyIdleTimeout }
      : {}),
    ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.maxResponseBytes !== undefined
      ? { maxResponseBytes: options.maxResponseBytes }
      : {}),
  };
}

/** What `serve` prints once it listens: where, which database, which keys, how clients reach it. */
function listeningBanner(url: string, path: string, access: ServeAccess): string {
  const { apiKey, tenantKeys, tenantKeysPath } = access;
  return [
    `shared-ctx serve: listening on ${url}`,
    `  database: ${path}`,
    `  API key:  ${apiKey ? "required (X-API-Key, from SHARED_CTX_API_KEY)" : tenantKeys ? "required (tenant keys only)" : "not required (set SHARED_CTX_API_KEY to require one)"}`,
    ...(tenantKeys
      ? [
          `  tenant keys: ${tenantKeys.length} (from ${tenantKeysPath}), each reaching only its tenants`,
        ]
      : []),
    `  clients:  STATEWAVE_URL=${url}`,
    `  hooks:    POST ${url}/hooks/claude-code, ${url}/hooks/gemini-cli (shared-ctx init claude-code --server ${url})`,
    `  MCP:      ${url}/mcp?subject=ID (streamable HTTP)`,
    "",
  ].join("\n");
}
