import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { CreateEpisodeInput, StoreChange } from "../../../src/context/context-store.js";
import { StoreClosedError } from "../../../src/context/errors/store-closed-error.js";
import { StoreSchemaError } from "../../../src/context/errors/store-schema-error.js";
import { StoreValidationError } from "../../../src/context/errors/store-validation-error.js";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { backendCount, postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("postgres-store-core-writes.e2e.test.ts") !== undefined;

function note(subjectId: string, content: string, sessionId?: string): CreateEpisodeInput {
  return {
    subjectId,
    source: "agent-a",
    type: "implementation_note",
    payload: { content },
    ...(sessionId === undefined ? {} : { sessionId }),
  };
}

async function validationError(attempt: Promise<unknown>): Promise<StoreValidationError> {
  const error = await attempt.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(StoreValidationError);
  return error as StoreValidationError;
}

describe.skipIf(skip)("PostgresStore writes", () => {
  const postgres = usePostgres(skip);
  const opened: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await item.close();
  });

  async function open(
    options: Partial<ConstructorParameters<typeof PostgresStore>[0]> = {},
  ): Promise<PostgresStore> {
    const store = new PostgresStore({ url: await postgres.database(), ...options });
    opened.push(store);
    return store;
  }

  /** A plain connection to the store's database, for what a test does behind the store's back. */
  async function admin(url: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    opened.push({ close: () => client.end() });
    return client;
  }

  /** Makes the database refuse new episodes of `subjectId`, as a failing disk would. */
  async function refuseEpisodesOf(url: string, subjectId: string): Promise<void> {
    const client = await admin(url);
    await client.query(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'disk full'; END $$`);
    await client.query(
      `CREATE TRIGGER refuse BEFORE INSERT ON episodes FOR EACH ROW
       WHEN (NEW.subject_id = '${subjectId}') EXECUTE FUNCTION refuse()`,
    );
  }

  describe("validation errors name the field and what it must be", () => {
    it.each([
      {
        call: "createEpisode with U+0000 in source",
        run: (store: PostgresStore) =>
          store.createEpisode({ ...note("s", "x"), source: "a\u0000b" }),
        field: "source",
        expected: "a string of 1..256 characters without U+0000 or unpaired surrogates",
      },
      // Each JSON column refuses what JSON cannot hold (a bigint), naming itself.
      ...(["payload", "metadata", "provenance"] as const).map((field) => ({
        call: `createEpisode with ${field} JSON cannot hold`,
        run: (store: PostgresStore) =>
          store.createEpisode({ ...note("s", "x"), [field]: { count: 1n as unknown as number } }),
        field,
        expected: "a JSON-serialisable object",
      })),
      {
        call: "createEpisodesBatch with U+0000 in the second item's type",
        run: (store: PostgresStore) =>
          store.createEpisodesBatch([note("s", "x"), { ...note("s", "y"), type: "a\u0000" }]),
        field: "episodes[1].type",
        expected: "a string of 1..128 characters without U+0000 or unpaired surrogates",
      },
      // Both compile calls check the subject id alike.
      ...(["compileMemories", "compileMemoriesAsync"] as const).flatMap((method) => [
        {
          call: `${method} with an empty subjectId`,
          run: (store: PostgresStore) => store[method](""),
          field: "subjectId",
          expected: undefined,
        },
        {
          call: `${method} with U+0000 in subjectId`,
          run: (store: PostgresStore) => store[method]("a\u0000b"),
          field: "subjectId",
          expected: "a string of 1..256 characters without U+0000 or unpaired surrogates",
        },
      ]),
    ])("$call", async ({ run, field, expected }) => {
      const store = await open();
      const error = await validationError(run(store));
      expect(error.field).toBe(field);
      expect(error.message).toMatch(new RegExp(`^Invalid ${field.replace(/[[\]]/g, "\\$&")}:`));
      if (expected !== undefined) expect(error.expected).toBe(expected);
      // Refused before anything was written.
      expect((await store.listSubjects()).total).toBe(0);
    });
  });

  describe("createEpisodesBatch", () => {
    it("stores each item's sessionId, as the returned episodes say", async () => {
      const store = await open();
      const { episodes } = await store.createEpisodesBatch([
        note("s", "one", "session-1"),
        note("s", "two"),
        note("s", "three", "session-2"),
      ]);
      expect(episodes.map((episode) => episode.sessionId)).toEqual([
        "session-1",
        null,
        "session-2",
      ]);
      expect((await store.getTimeline("s")).episodes).toEqual(episodes);
    });

    it("writes nothing when the database refuses one item, and the store keeps working", async () => {
      // One connection: a transaction left open on it would break every later call.
      const url = await postgres.database();
      const store = await open({ url, maxConnections: 1 });
      await store.connect();
      await refuseEpisodesOf(url, "doomed");
      await expect(
        store.createEpisodesBatch([note("kept", "a"), note("doomed", "b"), note("kept", "c")]),
      ).rejects.toThrow(/disk full/);
      expect(await store.listSubjects()).toEqual({ subjects: [], total: 0 });
      expect((await store.getTimeline("kept")).episodes).toEqual([]);
      const later = await store.createEpisode(note("kept", "d"));
      expect((await store.getTimeline("kept")).episodes).toEqual([later]);
      expect((await store.listSubjects()).subjects).toEqual([
        { subjectId: "kept", episodeCount: 1, memoryCount: 0 },
      ]);
    });

    it("two batches naming the same subjects in opposite orders both commit (no deadlock)", async () => {
      const store = await open();
      const subjects = Array.from(
        { length: 20 },
        (_, index) => `s${String(index).padStart(2, "0")}`,
      );
      for (let round = 0; round < 3; round += 1) {
        const results = await Promise.all([
          store.createEpisodesBatch(subjects.map((subjectId) => note(subjectId, `up ${round}`))),
          store.createEpisodesBatch(
            [...subjects].reverse().map((subjectId) => note(subjectId, `down ${round}`)),
          ),
        ]);
        expect(results.map((result) => result.episodesCreated)).toEqual([20, 20]);
      }
      const listed = await store.listSubjects();
      expect(listed.subjects.map((subject) => subject.episodeCount)).toEqual(subjects.map(() => 6));
    }, 60_000);

    it("is heard by a watcher on another replica, through NOTIFY rather than its slow poll", async () => {
      const url = await postgres.database();
      const writer = await open({ url });
      const reader = await open({ url, pollIntervalMs: 600_000 });
      await writer.connect();
      const changes: StoreChange[] = [];
      const subscription = reader.watch("s", (change) => changes.push(change));
      opened.push({ close: async () => subscription.close() });
      // Write once the reader's LISTEN connection is up: a NOTIFY sent before would be lost and
      // the reader would catch up on (re)listening instead.
      const client = await admin(url);
      await expect
        .poll(() => backendCount(client, "query LIKE 'LISTEN %'"), { timeout: 10_000 })
        .toBe(1);
      const { episodes } = await writer.createEpisodesBatch([
        note("s", "from the writer"),
        note("other", "elsewhere"),
      ]);
      await expect
        .poll(() => changes, { timeout: 10_000 })
        .toEqual([{ type: "episode", episode: episodes[0] }]);
    }, 30_000);
  });

  describe("the store's lifecycle", () => {
    it("a write cut off by close() fails with StoreClosedError", async () => {
      const store = await open();
      await store.connect();
      const write = store.createEpisodesBatch([note("s", "late")]);
      await store.close();
      await expect(write).rejects.toBeInstanceOf(StoreClosedError);
    });

    it("an idle store never keeps the process alive, even without close()", async () => {
      const url = await postgres.database();
      // What Node waits for before it exits: the handles still referenced.
      const sockets = () =>
        process.getActiveResourcesInfo().filter((type) => type === "TCPSocketWrap").length;
      const before = sockets();
      const store = await open({ url });
      await store.createEpisode(note("s", "x"));
      await store.createEpisodesBatch([note("s", "y")]);
      expect(sockets()).toBeLessThanOrEqual(before);
    });

    it("refuses a database migrated by a newer shared-ctx, and keeps refusing", async () => {
      const url = await postgres.database();
      const first = await open({ url });
      await first.connect();
      const client = await admin(url);
      await client.query("INSERT INTO shared_ctx_schema (version) VALUES (999)");
      const store = await open({ url });
      await expect(store.connect()).rejects.toBeInstanceOf(StoreSchemaError);
      await expect(store.createEpisode(note("s", "x"))).rejects.toBeInstanceOf(StoreSchemaError);
    });
  });
});
