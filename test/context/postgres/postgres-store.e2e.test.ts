import { describe, expect, it } from "vitest";
import type { ContextStore, CreateEpisodeInput } from "../../../src/context/context-store.js";
import { createContextStore } from "../../../src/context/create-context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { StoreValidationError } from "../../../src/context/errors/store-validation-error.js";
import { redactDatabaseUrl } from "../../../src/context/postgres/database-url.js";
import { PostgresConnectionError } from "../../../src/context/postgres/errors/postgres-connection-error.js";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { closedPort } from "../../support/closed-port.js";
import { spawnTsChild, waitForExit } from "../../support/run-child.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("postgres-store.e2e.test.ts") !== undefined;

describe("PostgresStore without a server", () => {
  it("names the server (password hidden) and the fix when nothing listens", async () => {
    const url = `postgres://agent:s3cret@127.0.0.1:${await closedPort()}/shared`;
    const store = new PostgresStore({ url });
    try {
      const error = await store.listSubjects().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PostgresConnectionError);
      const message = (error as PostgresConnectionError).message;
      expect(message).toContain("postgres://agent:***@127.0.0.1:");
      expect(message).not.toContain("s3cret");
      expect(message).toMatch(/Is Postgres running/);
    } finally {
      await store.close();
    }
  });

  it("serve --database-url exits 1 naming the database when it is down", async () => {
    const url = `postgres://agent:s3cret@127.0.0.1:${await closedPort()}/shared`;
    const result = await waitForExit(
      spawnTsChild("test/server/fixtures/serve-child.ts", ["--port", "0", "--database-url", url]),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("postgres://agent:***@127.0.0.1:");
    expect(result.stderr).not.toContain("s3cret");
    expect(result.stdout).not.toContain("listening");
  }, 30_000);

  it("is what createContextStore gives for SHARED_CTX_DATABASE_URL, unless --db/--url say otherwise", async () => {
    const env = { SHARED_CTX_DATABASE_URL: "postgres://127.0.0.1:1/x", STATEWAVE_URL: "http://x" };
    const postgres = createContextStore({ env, cwd: "/tmp" });
    expect(postgres).toBeInstanceOf(PostgresStore);
    await postgres.close();
    const embedded = createContextStore({
      env: { SHARED_CTX_DATABASE_URL: "postgres://127.0.0.1:1/x" },
      cwd: "/tmp",
      db: ":memory:",
    });
    expect(embedded).toBeInstanceOf(EmbeddedStore);
    await embedded.close();
    const server = createContextStore({ env, cwd: "/tmp", url: "http://127.0.0.1:1" });
    expect(server).not.toBeInstanceOf(PostgresStore);
    await server.close();
    expect(() => createContextStore({ env: {}, store: "postgres" })).toThrow(StoreValidationError);
  });

  it("redacts passwords and never prints a non-URL connection string", () => {
    expect(redactDatabaseUrl("postgresql://u:p@h:5/d?sslmode=require")).toBe(
      "postgresql://u:***@h:5/d?sslmode=require",
    );
    expect(redactDatabaseUrl("host=h password=p")).not.toContain("p ");
  });
});

/** Episodes like a run's: decisions that supersede and contradict, notes, findings, chat, machinery. */
function runEpisodes(subjectId: string): CreateEpisodeInput[] {
  const inputs: CreateEpisodeInput[] = [];
  const modules = [
    "jwt-issuer",
    "jwt-middleware",
    "login-endpoint",
    "legacy-session-token",
    "user-store",
  ];
  for (let step = 0; step < 120; step += 1) {
    const module = modules[step % modules.length] ?? "x";
    const agent = ["planner", "coder", "reviewer"][step % 3] ?? "planner";
    switch (step % 6) {
      case 0:
        inputs.push({
          subjectId,
          source: agent,
          type: "architectural_decision",
          payload: {
            content: `Decide ${module}: variant ${step} for tokens and sessions`,
            target: module,
          },
        });
        break;
      case 1:
        inputs.push({
          subjectId,
          source: agent,
          type: "implementation_note",
          payload: { content: `Built ${module} with caching step ${step}` },
        });
        break;
      case 2:
        inputs.push({
          subjectId,
          source: agent,
          type: "review_finding",
          payload: { text: `Review of ${module}: token expiry ${step}`, confidence: 0.6 },
        });
        break;
      case 3:
        inputs.push({
          subjectId,
          source: agent,
          type: "message",
          payload: { content: `chat about ${module}` },
        });
        break;
      case 4:
        inputs.push({
          subjectId,
          source: agent,
          type: "state_update",
          payload: { update: "AAEC" },
        });
        break;
      default:
        inputs.push({
          subjectId,
          source: "planner",
          type: "architectural_decision",
          payload: { content: `Planner restates ${module} at ${step}`, target: module },
          provenance: { read_memory_ids: [`id-${step}`] },
        });
    }
  }
  return inputs;
}

describe.skipIf(skip)("PostgresStore gives the embedded store's results", () => {
  const postgres = usePostgres(skip);

  it("on the same episodes: compile, supersede, contradictions, timeline, search and context", async () => {
    const deterministic = () => {
      let counter = 0;
      return {
        generateId: () => {
          counter += 1;
          return `id-${counter}`;
        },
        now: () => new Date(Date.UTC(2026, 10, 30, 12, 0, 0)),
      };
    };
    const embedded = new EmbeddedStore({ path: ":memory:", ...deterministic() });
    const pg = new PostgresStore({ url: await postgres.database(), ...deterministic() });
    const stores: ContextStore[] = [embedded, pg];
    try {
      const results = [];
      for (const store of stores) {
        const inputs = runEpisodes("run-1");
        const outcome: Record<string, unknown> = {};
        // In three parts, compiling in between: supersedes across compiles, not only within one.
        outcome.first = await store.createEpisodesBatch(inputs.slice(0, 40));
        outcome.compile1 = await store.compileMemories("run-1");
        for (const input of inputs.slice(40, 60)) await store.createEpisode(input);
        outcome.compile2 = await store.compileMemories("run-1");
        outcome.last = await store.createEpisodesBatch(inputs.slice(60));
        outcome.compile3 = await store.compileMemories("run-1");
        outcome.timeline = await store.getTimeline("run-1", { limit: 1000 });
        outcome.search = await store.searchMemories("run-1", { q: "TOKEN", limit: 100 });
        outcome.decisions = await store.searchMemories("run-1", { kind: "architectural_decision" });
        outcome.contexts = [];
        for (const task of [
          "Build module jwt-issuer",
          "Review login-endpoint token expiry",
          "chat",
        ]) {
          (outcome.contexts as unknown[]).push(
            await store.getContext("run-1", task, { maxTokens: 600 }),
          );
        }
        outcome.subjects = await store.listSubjects();
        results.push(outcome);
      }
      const [fromEmbedded, fromPostgres] = results;
      expect(fromPostgres?.compile1).toEqual(fromEmbedded?.compile1);
      expect(fromPostgres?.compile2).toEqual(fromEmbedded?.compile2);
      expect(fromPostgres?.compile3).toEqual(fromEmbedded?.compile3);
      expect(fromPostgres?.timeline).toEqual(fromEmbedded?.timeline);
      expect(fromPostgres?.search).toEqual(fromEmbedded?.search);
      expect(fromPostgres?.decisions).toEqual(fromEmbedded?.decisions);
      expect(fromPostgres?.subjects).toEqual(fromEmbedded?.subjects);
      expect(fromPostgres?.contexts).toEqual(fromEmbedded?.contexts);
    } finally {
      await embedded.close();
      await pg.close();
    }
  });

  it("refuses U+0000 in text fields with a validation error, as bad input", async () => {
    const store = new PostgresStore({ url: await postgres.database() });
    try {
      await expect(
        store.createEpisode({ subjectId: "a\u0000b", source: "x", type: "note", payload: {} }),
      ).rejects.toThrow(StoreValidationError);
      // Inside JSON a NUL is an escape sequence: stored and returned as given.
      const created = await store.createEpisode({
        subjectId: "nul",
        source: "x",
        type: "note",
        payload: { content: "a\u0000b" },
      });
      expect((await store.getTimeline("nul")).episodes).toEqual([created]);
    } finally {
      await store.close();
    }
  });

  it("isolates tenants: a tenant sees only its own subjects, episodes and memories", async () => {
    const store = new PostgresStore({ url: await postgres.database() });
    try {
      const acme = store.forTenant("acme");
      await store.createEpisode({
        subjectId: "s",
        source: "x",
        type: "note",
        payload: { content: "default" },
      });
      await acme.createEpisode({
        subjectId: "s",
        source: "x",
        type: "note",
        payload: { content: "acme" },
      });
      await acme.compileMemories("s");
      expect(
        (await store.getTimeline("s")).episodes.map((episode) => episode.payload.content),
      ).toEqual(["default"]);
      expect((await store.getTimeline("s")).memories).toEqual([]);
      expect((await acme.searchMemories("s")).map((memory) => memory.content)).toEqual(["acme"]);
      expect((await store.getContext("s", "acme")).facts).toEqual([]);
      expect((await acme.listSubjects()).subjects).toEqual([
        { subjectId: "s", episodeCount: 1, memoryCount: 1 },
      ]);
      expect((await store.forTenant("other").listSubjects()).total).toBe(0);
    } finally {
      await store.close();
    }
  });
});
