import { describe, expect, it } from "vitest";
import { isPostgresUrl, redactDatabaseUrl } from "../../../src/context/postgres/database-url.js";

describe("redactDatabaseUrl", () => {
  it("hides the password, and leaves a URL without one as it is", () => {
    expect(redactDatabaseUrl("postgres://user:secret@db.example:5432/ctx")).toBe(
      "postgres://user:***@db.example:5432/ctx",
    );
    expect(redactDatabaseUrl("postgres://user@db.example:5432/ctx")).toBe(
      "postgres://user@db.example:5432/ctx",
    );
  });

  it("says what a libpq key=value string is, never its content", () => {
    expect(redactDatabaseUrl("host=db password=secret")).toBe(
      "(a connection string that is not a URL)",
    );
  });
});

describe("isPostgresUrl", () => {
  it.each([
    ["postgres://db/ctx", true],
    ["postgresql://db/ctx", true],
    ["POSTGRES://db/ctx", true],
    ["mysql://db/ctx", false],
    ["file:///tmp/postgres://db", false],
    ["postgresq://db/ctx", false],
  ])("%s → %s", (url, expected) => {
    expect(isPostgresUrl(url)).toBe(expected);
  });
});
