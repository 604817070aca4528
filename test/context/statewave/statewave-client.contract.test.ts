import { afterAll } from "vitest";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { type RunningServer, startServer } from "../../../src/server/listen.js";
import { describeStoreContract } from "../store-contract.js";

// One real server on an ephemeral loopback port for the whole file; every test gets a fresh client.
let server: Promise<RunningServer> | undefined;
function sharedServer(): Promise<RunningServer> {
  server ??= startServer({ store: new EmbeddedStore({ path: ":memory:" }), port: 0 });
  return server;
}
afterAll(async () => {
  await (await server)?.close();
});

describeStoreContract("StatewaveStore -> shared-ctx serve (HTTP)", async () => {
  const { url } = await sharedServer();
  const store = new StatewaveStore({ baseUrl: url, pollIntervalMs: 20 });
  return { store, cleanup: () => store.close() };
});

describeStoreContract("StatewaveStore -> shared-ctx serve, tenant + API key", async () => {
  const running = await (async () => {
    const apiKeyServer = await startServer({
      store: new EmbeddedStore({ path: ":memory:" }),
      port: 0,
      apiKey: "s3cret",
    });
    return apiKeyServer;
  })();
  const store = new StatewaveStore({
    baseUrl: running.url,
    apiKey: "s3cret",
    tenantId: "tenant-a",
    pollIntervalMs: 20,
  });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await running.close();
    },
  };
});
