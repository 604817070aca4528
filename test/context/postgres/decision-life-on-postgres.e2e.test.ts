import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { statewaveClientOfServe } from "../../support/serve-fetch.js";
import { describeDecisionLife } from "../support/decision-life-suite.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("decision-life-on-postgres.e2e.test.ts") !== undefined;

// The embedded store's life-cycle suite (test/context/shared-context-decision-life.test.ts), on Postgres.
describeDecisionLife(
  "Postgres",
  () => {
    const postgres = usePostgres(skip);
    return async () => {
      const store = new PostgresStore({ url: await postgres.database() });
      return { store, close: () => store.close() };
    };
  },
  { skip },
);

// And through `serve` on Postgres, as a Statewave client sees it.
describeDecisionLife(
  "serve on Postgres (StatewaveStore over HTTP)",
  () => {
    const postgres = usePostgres(skip);
    return async () => {
      return statewaveClientOfServe(new PostgresStore({ url: await postgres.database() }));
    };
  },
  { skip, notifies: false },
);
