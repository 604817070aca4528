import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ContextStore, Episode, StoreChange } from "../../../src/context/context-store.js";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { SharedContext } from "../../../src/context/shared-context.js";
import { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { SharedState } from "../../../src/crdt/shared-state.js";
import { writeInStep } from "../../crdt/support/state-writers.js";
import { drivenChild, spawnTsChild, waitForExit } from "../../support/run-child.js";
import { uniqueSubject } from "../store-contract.js";
import { decision, listen } from "../support/shared-context-setups.js";
import { type ServeReplica, startServeReplica, stopReplicas } from "./serve-replicas.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("replicas.e2e.test.ts") !== undefined;

describe.skipIf(skip)("several replicas on one Postgres", () => {
  const postgres = usePostgres(skip);
  let databaseUrl: string;
  let replicas: ServeReplica[] = [];
  const opened: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    databaseUrl = await postgres.database();
    // Migrate once up front, so the replicas race on writes, not on the migration (which is
    // itself safe: it runs under an advisory lock).
    const first = new PostgresStore({ url: databaseUrl });
    await first.connect();
    await first.close();
    replicas = await Promise.all([0, 1, 2].map(() => startServeReplica(databaseUrl)));
  }, 60_000);
  afterAll(async () => {
    await stopReplicas(replicas);
  }, 30_000);
  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await item.close();
  });

  const client = (index: number): StatewaveStore => {
    const replica = replicas[index % replicas.length];
    if (!replica) throw new Error("no replica");
    const store = new StatewaveStore({ baseUrl: replica.url, pollIntervalMs: 25 });
    opened.push(store);
    return store;
  };
  const direct = (options: { pollIntervalMs?: number } = {}): PostgresStore => {
    const store = new PostgresStore({ url: databaseUrl, ...options });
    opened.push(store);
    return store;
  };

  async function fullTimeline(store: ContextStore, subjectId: string): Promise<Episode[]> {
    const episodes: Episode[] = [];
    for (let offset = 0; ; offset += 1000) {
      const page = await store.getTimeline(subjectId, { limit: 1000, offset });
      episodes.push(...page.episodes);
      if (page.episodes.length < 1000) return episodes;
    }
  }

  it("8 writers x 250 through 3 serve replicas: 2,000 episodes exactly once, one order on every replica", async () => {
    const subjectId = uniqueSubject("race");
    const writers = Array.from({ length: 8 }, (_, index) => `writer-${index}`);
    const acknowledged = await Promise.all(
      writers.map(async (writer, index) => {
        const store = client(index);
        const ids: string[] = [];
        for (let step = 0; step < 250; step += 1) {
          const episode = await store.createEpisode({
            subjectId,
            source: writer,
            type: "implementation_note",
            payload: { content: `${writer} step ${step}`, index: step },
          });
          ids.push(episode.id);
        }
        return ids;
      }),
    );
    const printed = acknowledged.flat();
    expect(new Set(printed).size).toBe(2000);

    const orders = await Promise.all(
      [0, 1, 2].map((index) => fullTimeline(client(index), subjectId)),
    );
    const [first, ...others] = orders.map((episodes) => episodes.map((episode) => episode.id));
    expect(first).toHaveLength(2000);
    expect(new Set(first)).toEqual(new Set(printed));
    for (const other of others) expect(other).toEqual(first);
    // Each writer's episodes appear in the order it wrote them.
    const episodes = orders[0] ?? [];
    for (const writer of writers) {
      const indexes = episodes
        .filter((episode) => episode.source === writer)
        .map((episode) => episode.payload.index);
      expect(indexes).toEqual(Array.from({ length: 250 }, (_, index) => index));
    }
    // Paging through another replica gives the same sequence.
    const paged: string[] = [];
    const store = client(1);
    for (let offset = 0; offset < 2000; offset += 300) {
      const page = await store.getTimeline(subjectId, { limit: 300, offset });
      paged.push(...page.episodes.map((episode) => episode.id));
    }
    expect(paged).toEqual(first);
  }, 240_000);

  it("concurrent batches and compiles through different replicas compile each episode once", async () => {
    const subjectId = uniqueSubject("compile-race");
    await Promise.all(
      [0, 1, 2].map((index) =>
        client(index).createEpisodesBatch(
          Array.from({ length: 50 }, (_, step) => ({
            subjectId,
            source: `agent-${index}`,
            type: "implementation_note",
            payload: { content: `note ${index}-${step}` },
          })),
        ),
      ),
    );
    await Promise.all([0, 1, 2, 0, 1, 2].map((index) => client(index).compileMemories(subjectId)));
    const { memories } = await direct().getTimeline(subjectId, { limit: 1000 });
    expect(memories).toHaveLength(150);
    const sources = memories.flatMap((memory) => memory.sourceEpisodeIds);
    expect(new Set(sources).size).toBe(150);
  }, 60_000);

  it("keeps every acknowledged write when a replica is SIGKILLed mid-write", async () => {
    const victim = await startServeReplica(databaseUrl);
    const subjectId = uniqueSubject("crash");
    const store = new StatewaveStore({ baseUrl: victim.url, maxRetries: 0 });
    opened.push(store);
    const acknowledged: string[] = [];
    let killed = false;
    const writing = (async () => {
      for (let step = 0; ; step += 1) {
        try {
          const episode = await store.createEpisode({
            subjectId,
            source: "victim-writer",
            type: "implementation_note",
            payload: { content: `step ${step}` },
          });
          acknowledged.push(episode.id);
        } catch (error) {
          if (killed) return;
          throw error;
        }
        if (acknowledged.length === 200) {
          killed = true;
          victim.child.kill("SIGKILL");
        }
      }
    })();
    await writing;
    const result = await victim.exited;
    expect(result.signal).toBe("SIGKILL");
    const stored = new Set((await fullTimeline(client(0), subjectId)).map((episode) => episode.id));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    expect(stored.size).toBeGreaterThanOrEqual(200);
  }, 60_000);

  it("a watcher on one store hears another replica's writes through LISTEN/NOTIFY, in order", async () => {
    const subjectId = uniqueSubject("notify");
    // A fallback poll of one minute: anything delivered within the test came by NOTIFY.
    const watcher = direct({ pollIntervalMs: 60_000 });
    const writer = direct();
    const changes: StoreChange[] = [];
    const subscription = watcher.watch(subjectId, (change) => changes.push(change));
    try {
      // Let the LISTEN connection start; until then a write is found by the catch-up on connect.
      await watcher.listSubjects({ limit: 1 });
      const { episodes } = await writer.createEpisodesBatch(
        Array.from({ length: 5 }, (_, step) => ({
          subjectId,
          source: "remote",
          type: "architectural_decision",
          payload: { content: `decision ${step}`, target: "same-target" },
        })),
      );
      await writer.compileMemories(subjectId);
      await expect.poll(() => changes.length, { timeout: 10_000, interval: 10 }).toBe(10);
      expect(
        changes.slice(0, 5).map((change) => change.type === "episode" && change.episode.id),
      ).toEqual(episodes.map((episode) => episode.id));
      const memories = changes.flatMap((change) =>
        change.type === "memory" ? [change.memory] : [],
      );
      // The same agent restating its decision: only the last one stays active.
      expect(
        memories.filter((memory) => memory.status === "active").map((memory) => memory.content),
      ).toEqual(["decision 4"]);
    } finally {
      subscription.close();
    }
  }, 30_000);

  it("never keeps a process alive just because it watches", async () => {
    const result = await waitForExit(
      spawnTsChild("test/context/postgres/fixtures/idle-watcher.ts", [databaseUrl]),
    );
    expect(result, result.stderr).toMatchObject({ code: 0, stdout: "watching\n" });
  }, 30_000);

  it.each([
    ["two serve replicas (HTTP)", () => [client(0), client(1)] as const],
    [
      "two PostgresStore processes' worth of pools (LISTEN/NOTIFY)",
      () => [direct(), direct()] as const,
    ],
  ])(
    "two SharedContext users on %s see each other's decisions and invalidations",
    async (_label, stores) => {
      const [storeA, storeB] = stores();
      const subjectId = uniqueSubject("shared");
      const planner = new SharedContext({ store: storeA, subjectId });
      const coder = new SharedContext({ store: storeB, subjectId });
      opened.push(planner, coder);

      await planner.decide("project", "legacy-cache is in use", decision("legacy-cache"));
      const read = await coder.beforeActing("coder", "Build module legacy-cache");
      expect(read.decisions.map((memory) => memory.content)).toEqual(["legacy-cache is in use"]);

      const notices = listen(coder, "coder");
      await planner.beforeActing("planner", "Decide the fate of legacy-cache");
      await planner.decide("planner", "Retire legacy-cache", decision("legacy-cache"));
      await expect.poll(() => notices.length, { timeout: 10_000, interval: 20 }).toBe(1);
      expect(notices[0]).toMatchObject({
        by: "planner",
        reason: "superseded by planner: Retire legacy-cache",
      });
      const after = await coder.beforeActing("coder", "Build module legacy-cache");
      expect(after.decisions.map((memory) => memory.content)).toEqual(["Retire legacy-cache"]);
    },
    30_000,
  );

  it("SharedState in two processes, each on its own serve replica, converges on the same state and escalations", async () => {
    /** The CRDT cross-process test's writer, driven line by line. */
    const driven = (url: string, agent: string) =>
      drivenChild(
        "test/crdt/fixtures/state-writer.ts",
        ["--url", url, "--agent", agent],
        "state writer",
      );

    const a = driven(replicas[0]?.url ?? "", "a");
    const b = driven(replicas[1]?.url ?? "", "b");
    try {
      const [resultA, resultB] = await writeInStep(a, b);
      expect(resultB?.state).toStrictEqual(resultA?.state);
      expect(resultB?.escalations).toStrictEqual(resultA?.escalations);
      expect(resultA?.follower).toStrictEqual(resultA?.state);
      expect(resultA?.escalations.map((escalation) => escalation.reason).sort()).toEqual([
        "concurrent-register",
        "kind-mismatch",
      ]);
      const work = resultA?.state.work as { tags: string[]; hits: number };
      expect(work.tags).toHaveLength(30);
      expect(work.hits).toBe(30);
    } finally {
      for (const { child } of [a, b]) if (child.exitCode === null) child.kill();
    }
  }, 120_000);

  it("SharedState replicas writing through two serve replicas converge", async () => {
    const subjectId = uniqueSubject("state");
    const schema = { work: { hits: "counter" as const } };
    const a = await SharedState.open({ store: client(0), subjectId, agentId: "a", schema });
    const b = await SharedState.open({ store: client(1), subjectId, agentId: "b", schema });
    opened.push(a, b);
    await Promise.all(
      [a, b].map(async (state, index) => {
        for (let step = 0; step < 10; step += 1) {
          await state.put("work", "tags", [`${index}-${step}`]);
          await state.put("work", "hits", 1);
        }
      }),
    );
    await expect
      .poll(
        async () => {
          await a.sync();
          await b.sync();
          return (a.toJSON().work as { hits?: number } | undefined)?.hits ?? 0;
        },
        { timeout: 15_000, interval: 50 },
      )
      .toBe(20);
    await expect
      .poll(async () => {
        await b.sync();
        return b.toJSON();
      })
      .toStrictEqual(a.toJSON());
    expect((a.toJSON().work as { tags: string[] }).tags).toHaveLength(20);
  }, 60_000);
});
