import { describe, expect, it } from "vitest";
import { PostgresConnectionError } from "../../../src/context/postgres/errors/postgres-connection-error.js";
import { toStoreError } from "../../../src/context/postgres/postgres-errors.js";
import { SharedCtxError } from "../../../src/errors.js";

const location = "postgres://app:***@db.example:5432/ctx";

/** An error shaped like the ones `pg` throws: an Error with a SQLSTATE or socket `code`. */
function pgError(message: string, code?: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

const notAccepting =
  "The server is not accepting connections: is it running and reachable from here?";
const badCredentials = "Check the user and password in SHARED_CTX_DATABASE_URL / --database-url.";
const noDatabase =
  "Create the database first (createdb NAME), or point the URL at an existing one.";
const notRunning =
  "Is Postgres running, and does SHARED_CTX_DATABASE_URL / --database-url point at it?";
const noAnswer = "The server did not answer in time: is it running and reachable from here?";

describe("toStoreError", () => {
  it.each([
    ["connection exception (class 08)", "08006", "connection failure", notAccepting],
    ["connection refused by the server (class 08)", "08001", "cannot connect now", notAccepting],
    ["the server still starting up", "57P03", "the database system is starting up", notAccepting],
    ["a wrong password", "28P01", 'password authentication failed for user "app"', badCredentials],
    [
      "an unknown or unauthorised user",
      "28000",
      'no pg_hba.conf entry for host "10.0.0.1"',
      badCredentials,
    ],
    ["a missing database", "3D000", 'database "ctx" does not exist', noDatabase],
    ["a refused socket", "ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432", notRunning],
    ["an unknown host", "ENOTFOUND", "getaddrinfo ENOTFOUND db.example", notRunning],
    ["a reset socket", "ECONNRESET", "read ECONNRESET", notRunning],
    [
      "a pool timeout without a code",
      undefined,
      "timeout exceeded when trying to connect",
      noAnswer,
    ],
    [
      "a connection dropped without a code",
      undefined,
      "Connection terminated unexpectedly",
      noAnswer,
    ],
  ])("reports %s as a connection error naming the server and the fix", (_, code, message, hint) => {
    const original = pgError(message, code);
    const reported = toStoreError(original, location);
    expect(reported).toBeInstanceOf(PostgresConnectionError);
    const error = reported as PostgresConnectionError;
    expect(error.hint).toBe(hint);
    expect(error.url).toBe(location);
    expect(error.message).toBe(
      `Cannot use the Postgres database at ${location}: ${message}. ${hint}`,
    );
    expect(error.cause).toBe(original);
  });

  it.each([
    ["a unique violation", "23505", "duplicate key value violates unique constraint"],
    ["a syntax error", "42601", 'syntax error at or near "SELEC"'],
    ["a serialization failure", "40001", "could not serialize access"],
    ["a code that merely ends in 08", "22008", "datetime field overflow"],
    ["a code that merely contains 57P03", "X57P03", "not a real SQLSTATE"],
    ["a code that merely ends in 3D000", "X3D000", "not a real SQLSTATE"],
    ["an error without a code", undefined, "something else went wrong"],
  ])("passes %s through unchanged", (_, code, message) => {
    const original = pgError(message, code);
    expect(toStoreError(original, location)).toBe(original);
  });

  it("passes shared-ctx's own errors through, even when their words look like a dropped connection", () => {
    const own = new SharedCtxError("Connection terminated by the caller's abort signal");
    expect(toStoreError(own, location)).toBe(own);
  });
});
