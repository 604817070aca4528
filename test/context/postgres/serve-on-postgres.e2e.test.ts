import { describe, expect, it } from "vitest";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { createApp } from "../../../src/server/app.js";
import { describeBadRequests } from "../../server/bad-requests.js";
import { describeIdempotentWrites } from "../../server/idempotent-writes.js";
import { describeServeOnTheWire } from "../../server/serve-wire.js";
import { freshPostgresStores, postgresSkipReason } from "./use-postgres.js";

const skip = postgresSkipReason("serve-on-postgres.e2e.test.ts") !== undefined;
const base = "http://test";

interface ErrorBody {
  error: { code: string; message: string };
}

// The embedded store's bad-request table (test/server/bad-requests.test.ts), on Postgres.
describeBadRequests("Postgres", freshPostgresStores(skip), skip);

// The embedded store's idempotency tests (test/server/idempotent-writes.test.ts), on Postgres.
describeIdempotentWrites("Postgres", freshPostgresStores(skip), skip);

// The embedded store's wire tests (test/server/compat-serve-wire.test.ts), on Postgres.
describeServeOnTheWire("Postgres", freshPostgresStores(skip), skip);

describe.skipIf(skip)("serve on Postgres: an unreachable database", () => {
  it("answers 503 service_unavailable, naming nothing internal, when its database is unreachable", async () => {
    const down = new PostgresStore({ url: "postgres://agent:s3cret@127.0.0.1:1/none" });
    try {
      const response = await createApp({ store: down }).fetch(new Request(`${base}/v1/subjects`));
      expect(response.status).toBe(503);
      const body = (await response.json()) as ErrorBody;
      expect(body.error.code).toBe("service_unavailable");
      expect(JSON.stringify(body)).not.toContain("s3cret");
    } finally {
      await down.close();
    }
  });
});
