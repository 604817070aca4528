import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createContextStore } from "../../src/context/create-context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { StatewaveStore } from "../../src/context/statewave/statewave-store.js";
import { startServer } from "../../src/server/listen.js";
import { useTempDir } from "../support/temp-dir.js";

describe("createContextStore", () => {
  const tempDir = useTempDir("create-store-");

  it("opens an EmbeddedStore at <cwd>/.shared-ctx/store.db by default", async () => {
    const cwd = tempDir();
    const store = createContextStore({ env: {}, cwd });
    expect(store).toBeInstanceOf(EmbeddedStore);
    expect((store as EmbeddedStore).path).toBe(join(cwd, ".shared-ctx", "store.db"));
    expect(existsSync(join(cwd, ".shared-ctx", "store.db"))).toBe(true);
    await store.close();
  });

  it("takes SHARED_CTX_DB, and db over it, relative to cwd", async () => {
    const cwd = tempDir();
    const fromEnv = createContextStore({ env: { SHARED_CTX_DB: "env.db" }, cwd });
    expect((fromEnv as EmbeddedStore).path).toBe(join(cwd, "env.db"));
    await fromEnv.close();
    const fromOption = createContextStore({
      db: ":memory:",
      env: { SHARED_CTX_DB: "env.db" },
      cwd,
    });
    expect((fromOption as EmbeddedStore).path).toBe(":memory:");
    await fromOption.close();
  });

  it("gives a StatewaveStore when STATEWAVE_URL is set", async () => {
    const store = createContextStore({
      env: { STATEWAVE_URL: "http://example.test:9/" },
      cwd: tempDir(),
    });
    expect(store).toBeInstanceOf(StatewaveStore);
    expect((store as StatewaveStore).baseUrl).toBe("http://example.test:9");
    await store.close();
  });

  it("gives a StatewaveStore for store: 'statewave' with the default URL", async () => {
    const store = createContextStore({ store: "statewave", env: {}, cwd: tempDir() });
    expect((store as StatewaveStore).baseUrl).toBe("http://localhost:8100");
  });

  it("lets store: 'embedded' win over STATEWAVE_URL", async () => {
    const store = createContextStore({
      store: "embedded",
      db: ":memory:",
      env: { STATEWAVE_URL: "http://example.test:9" },
    });
    expect(store).toBeInstanceOf(EmbeddedStore);
    await store.close();
  });

  it("sends STATEWAVE_API_KEY and STATEWAVE_TENANT_ID to the server", async () => {
    const backing = new EmbeddedStore({ path: ":memory:" });
    const server = await startServer({ store: backing, port: 0, apiKey: "k" });
    try {
      const store = createContextStore({
        env: { STATEWAVE_URL: server.url, STATEWAVE_API_KEY: "k", STATEWAVE_TENANT_ID: "t1" },
      });
      await store.createEpisode({ subjectId: "s", source: "a", type: "t", payload: {} });
      expect((await backing.forTenant("t1").getTimeline("s")).episodes).toHaveLength(1);
      expect((await backing.getTimeline("s")).episodes).toHaveLength(0);
      await store.close();
    } finally {
      await server.close();
    }
  });

  it("scopes an embedded store to tenantId and closes the database with it", async () => {
    const path = join(tempDir(), "tenant.db");
    const store = createContextStore({ db: path, tenantId: "t2", env: {} });
    await store.createEpisode({ subjectId: "s", source: "a", type: "t", payload: {} });
    await store.close();
    const reopened = new EmbeddedStore({ path });
    expect((await reopened.getTimeline("s")).episodes).toHaveLength(0);
    expect((await reopened.forTenant("t2").getTimeline("s")).episodes).toHaveLength(1);
    await reopened.close();
  });
});
