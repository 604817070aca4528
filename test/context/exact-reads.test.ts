import { join } from "node:path";
import { describe } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { StatewaveStore } from "../../src/context/statewave/statewave-store.js";
import { startServer } from "../../src/server/listen.js";
import { useTempDir } from "../support/temp-dir.js";
import { describeExactReads } from "./support/exact-reads-suite.js";

describe("exact reads on the embedded store and through serve on it", () => {
  const tempDir = useTempDir("exact-reads-");

  // The exact-read suite (test/context/support/exact-reads-suite.ts) on an embedded file, which
  // `check` and the hooks open too …
  describeExactReads("the embedded store", () => async () => {
    const path = join(tempDir(), "store.db");
    const store = new EmbeddedStore({ path });
    return { store, close: () => store.close(), flags: ["--db", path] };
  });

  // … and through `serve` on it, as a Statewave client sees it (the CLI by `--url`).
  describeExactReads("serve on the embedded store (StatewaveStore over HTTP)", () => async () => {
    const server = await startServer({
      store: new EmbeddedStore({ path: join(tempDir(), "served.db") }),
      port: 0,
    });
    const store = new StatewaveStore({ baseUrl: server.url });
    return {
      store,
      close: async () => {
        await store.close();
        await server.close();
      },
      flags: ["--url", server.url],
    };
  });
});
