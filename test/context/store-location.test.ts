import { describe, expect, it } from "vitest";
import { StoreValidationError } from "../../src/context/errors/store-validation-error.js";
import { resolveStoreLocation, resolveStoreSettings } from "../../src/context/store-location.js";

const cwd = "/work/project";
const databaseUrl = "postgres://127.0.0.1:5432/ctx";

describe("resolveStoreLocation: which store a configuration selects", () => {
  it.each([
    ["SHARED_CTX_DATABASE_URL alone", {}, { SHARED_CTX_DATABASE_URL: databaseUrl }, "postgres"],
    ["an empty SHARED_CTX_DATABASE_URL", {}, { SHARED_CTX_DATABASE_URL: "" }, "embedded"],
    [
      "the environment's database URL beside a `db` option",
      { db: "x.db" },
      { SHARED_CTX_DATABASE_URL: databaseUrl },
      "embedded",
    ],
    [
      "the environment's database URL beside a `url` option",
      { url: "http://h:1" },
      { SHARED_CTX_DATABASE_URL: databaseUrl },
      "statewave",
    ],
    ["a `databaseUrl` option beside a `db` option", { databaseUrl, db: "x.db" }, {}, "postgres"],
    [
      "a `databaseUrl` option beside STATEWAVE_URL",
      { databaseUrl },
      { STATEWAVE_URL: "http://h:1" },
      "postgres",
    ],
    ["STATEWAVE_URL alone", {}, { STATEWAVE_URL: "http://h:1" }, "statewave"],
  ])("%s: %s", (_, options, env, kind) => {
    expect(resolveStoreLocation({ ...options, env, cwd }).kind).toBe(kind);
  });

  it("refuses Postgres without a URL, and says where to give one", () => {
    const act = () => resolveStoreLocation({ store: "postgres", env: {}, cwd });
    expect(act).toThrow(StoreValidationError);
    expect(act).toThrow(
      "Invalid databaseUrl: expected a postgres:// URL (set SHARED_CTX_DATABASE_URL or pass --database-url)",
    );
  });
});

describe("resolveStoreSettings", () => {
  it("leaves out the tenant and key a Statewave client was not given", () => {
    const settings = resolveStoreSettings({ url: "http://h:1", env: {}, cwd });
    expect(settings).toStrictEqual({ kind: "statewave", baseUrl: "http://h:1" });
  });

  it("passes the tenant and key it was given", () => {
    const settings = resolveStoreSettings({
      url: "http://h:1",
      env: { STATEWAVE_TENANT_ID: "acme", STATEWAVE_API_KEY: "k" },
      cwd,
    });
    expect(settings).toStrictEqual({
      kind: "statewave",
      baseUrl: "http://h:1",
      apiKey: "k",
      tenantId: "acme",
    });
  });
});
