import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { StoreValidationError } from "../../src/context/errors/store-validation-error.js";
import { openContextStore } from "../../src/context/open-context-store.js";
import { PostgresStore } from "../../src/context/postgres/postgres-store.js";
import { StatewaveStore } from "../../src/context/statewave/statewave-store.js";
import { useTempDir } from "../support/temp-dir.js";

/** The same selection as createContextStore (its own tests cover the rules), loaded on demand. */
describe("openContextStore", () => {
  const tempDir = useTempDir("open-store-");

  it("opens the embedded file SHARED_CTX_DB names, relative to cwd, in the tenant asked for", async () => {
    const cwd = tempDir();
    const store = await openContextStore({
      env: { SHARED_CTX_DB: "env.db", STATEWAVE_TENANT_ID: "acme" },
      cwd,
    });
    expect(store).toBeInstanceOf(EmbeddedStore);
    expect((store as EmbeddedStore).path).toBe(join(cwd, "env.db"));
    await store.createEpisode({ subjectId: "s", source: "a", type: "note", payload: {} });
    const other = await openContextStore({ env: { SHARED_CTX_DB: "env.db" }, cwd });
    expect((await other.getTimeline("s")).episodes).toEqual([]);
    await other.close();
    await store.close();
  });

  it("gives a StatewaveStore with the URL and the API key", async () => {
    const store = await openContextStore({
      env: { STATEWAVE_URL: "http://example.test:9/", STATEWAVE_API_KEY: "k" },
      cwd: tempDir(),
    });
    expect(store).toBeInstanceOf(StatewaveStore);
    expect((store as StatewaveStore).baseUrl).toBe("http://example.test:9");
    await store.close();
  });

  it("gives a PostgresStore for a database URL, without connecting yet", async () => {
    const store = await openContextStore({
      databaseUrl: "postgres://user:secret@127.0.0.1:9/db",
      env: {},
      cwd: tempDir(),
    });
    expect(store).toBeInstanceOf(PostgresStore);
    await store.close();
  });

  it("refuses Postgres without a URL", async () => {
    await expect(openContextStore({ store: "postgres", env: {}, cwd: tempDir() })).rejects.toThrow(
      StoreValidationError,
    );
  });
});
