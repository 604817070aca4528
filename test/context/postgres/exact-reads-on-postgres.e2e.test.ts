import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { startServer } from "../../../src/server/listen.js";
import { describeExactReads } from "../support/exact-reads-suite.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("exact-reads-on-postgres.e2e.test.ts") !== undefined;

// The embedded store's exact-read suite (test/context/exact-reads.test.ts), on Postgres …
describeExactReads(
  "Postgres",
  () => {
    const postgres = usePostgres(skip);
    return async () => {
      const url = await postgres.database();
      const store = new PostgresStore({ url });
      return { store, close: () => store.close(), flags: ["--database-url", url] };
    };
  },
  { skip },
);

// … and through `serve` on Postgres, as a Statewave client sees it (the CLI by `--url`).
describeExactReads(
  "serve on Postgres (StatewaveStore over HTTP)",
  () => {
    const postgres = usePostgres(skip);
    return async () => {
      const server = await startServer({
        store: new PostgresStore({ url: await postgres.database() }),
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
    };
  },
  { skip },
);
