import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRunCommand } from "../../../src/cli/commands/run.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { type RunningServer, startServer } from "../../../src/server/listen.js";
import { runCommand } from "../../cli/cli-harness.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("scenarios-on-postgres.e2e.test.ts") !== undefined;

const scenarios = readdirSync(new URL("../../../scenarios/", import.meta.url))
  .filter((file) => /\.(ya?ml|json)$/.test(file))
  .map((file) => file.replace(/\.(ya?ml|json)$/, ""));

/** Ids differ between any two runs (run ids, random memory and episode ids): replaced by their shape. */
function withoutIds(value: unknown): unknown {
  if (typeof value === "string") {
    return value
      .replace(/\b(sw|nv|bc)-[0-9a-f]{8}\b/g, "<run>")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>");
  }
  if (Array.isArray(value)) return value.map(withoutIds);
  if (typeof value === "object" && value !== null) {
    const kept: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // What measures the machine, not the run.
      if (/startedAt|wall|latency|elapsed|duration|At$/i.test(key) || /^ms$|Ms$/.test(key))
        continue;
      kept[key] = withoutIds(item);
    }
    return kept;
  }
  return value;
}

/**
 * A run's outcome: its verdict (collision, what was avoided and how, escalations, waste, totals),
 * without ids and machine timings. The event order and the size of each context read are left
 * out: with two agents polling one server they follow the interleaving of HTTP requests, and
 * differ between two runs on the same embedded store too. So does the cost under the one rule
 * (`cost`: the store requests a read makes, the tokens of the bundles it delivered).
 */
function outcome(stdout: string): unknown {
  const document = JSON.parse(stdout) as Record<string, unknown>;
  const summary = (document.summary ?? document) as Record<string, unknown>;
  const { events: _events, read: _read, real: _real, cost: _cost, ...verdict } = summary;
  return withoutIds(verdict);
}

describe.skipIf(skip)("every shipped scenario through serve on Postgres", () => {
  const postgres = usePostgres(skip);
  let onPostgres: RunningServer;
  let onEmbedded: RunningServer;

  beforeAll(async () => {
    onPostgres = await startServer({
      store: new PostgresStore({ url: await postgres.database() }),
      port: 0,
    });
    onEmbedded = await startServer({ store: new EmbeddedStore({ path: ":memory:" }), port: 0 });
  }, 60_000);
  afterAll(async () => {
    await onPostgres?.close();
    await onEmbedded?.close();
  });

  it.each(scenarios)(
    "%s: the same outcome as through serve on the embedded store",
    async (scenario) => {
      const run = (url: string) =>
        runCommand(
          makeRunCommand,
          ["run", "--mode", "statewave", "--scenario", scenario, "--json", "--seed", "3"],
          {
            env: { STATEWAVE_URL: url },
          },
        );
      const [fromPostgres, fromEmbedded] = await Promise.all([
        run(onPostgres.url),
        run(onEmbedded.url),
      ]);
      expect(fromPostgres.exitCode, fromPostgres.stderr).toBe(0);
      expect(fromEmbedded.exitCode, fromEmbedded.stderr).toBe(0);
      expect(outcome(fromPostgres.stdout)).toEqual(outcome(fromEmbedded.stdout));
    },
    120_000,
  );
});
