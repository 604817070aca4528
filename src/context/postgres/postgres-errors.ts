import { messageOf, SharedCtxError } from "../../errors.js";
import { PostgresConnectionError } from "./errors/postgres-connection-error.js";

/** Node socket errors that mean "the server is not there". */
const networkCodes = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "ECONNRESET",
  "EHOSTUNREACH",
  "EPIPE",
]);

/** SQLSTATEs that mean "connected, but may not use this database" (class 08, auth, no database, starting). */
function connectionHint(code: string): string | undefined {
  if (code.startsWith("08") || code === "57P03") {
    return "The server is not accepting connections: is it running and reachable from here?";
  }
  if (code === "28P01" || code === "28000") {
    return "Check the user and password in SHARED_CTX_DATABASE_URL / --database-url.";
  }
  if (code === "3D000") {
    return "Create the database first (createdb NAME), or point the URL at an existing one.";
  }
  return undefined;
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  const { code } = error;
  return typeof code === "string" ? code : undefined;
}

/**
 * A driver error as the store reports it: a connection problem becomes a
 * {@link PostgresConnectionError} naming the server and the fix; shared-ctx's own errors and
 * anything else pass through unchanged.
 */
export function toStoreError(error: unknown, location: string): unknown {
  if (SharedCtxError.isInstance(error)) return error;
  const code = codeOf(error);
  const reason = messageOf(error);
  if (code !== undefined && networkCodes.has(code)) {
    return new PostgresConnectionError(
      location,
      reason,
      "Is Postgres running, and does SHARED_CTX_DATABASE_URL / --database-url point at it?",
      { cause: error },
    );
  }
  if (code === "57014" || /Query read timeout/.test(reason)) {
    // A statement past statement_timeout (the server cancelled it), or a server that did not
    // answer at all within the client's query timeout (frozen, or unreachable mid-query).
    return new PostgresConnectionError(
      location,
      reason,
      "The database did not answer within the statement timeout: is it overloaded, stalled or unreachable? Retry later.",
      { cause: error },
    );
  }
  const hint = code === undefined ? undefined : connectionHint(code);
  if (hint !== undefined)
    return new PostgresConnectionError(location, reason, hint, { cause: error });
  if (/timeout exceeded when trying to connect|Connection terminated/i.test(reason)) {
    return new PostgresConnectionError(
      location,
      reason,
      "The server did not answer in time: is it running and reachable from here?",
      { cause: error },
    );
  }
  return error;
}
