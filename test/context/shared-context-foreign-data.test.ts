import { describe, expect, it } from "vitest";
import type { JsonObject, Memory } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { captureFeed, closeAfterEach } from "./support/shared-context-fixture.js";
import { decision, listen, subjectId } from "./support/shared-context-setups.js";

/**
 * Memories another writer's store hands back (a Statewave server, an older `serve`) need not carry
 * the metadata shapes shared-ctx's compile writes: a target, source or contradiction list that is
 * not a string is no target, no known author, no contradiction.
 */

const opened = closeAfterEach();

function setUp() {
  const store = new EmbeddedStore({ path: ":memory:" });
  const send = captureFeed(store);
  const shared = new SharedContext({ store, subjectId });
  opened.push(store, shared);
  /** From now on, every memory the store returns has `metadata` changed by `change`. */
  const rewriteMetadata = (change: (metadata: JsonObject) => JsonObject) => {
    const rewrite = (memory: Memory): Memory => ({
      ...memory,
      metadata: change(memory.metadata),
    });
    const search = store.searchMemories.bind(store);
    store.searchMemories = async (id, options) => (await search(id, options)).map(rewrite);
    const list = store.listMemories.bind(store);
    store.listMemories = async (id, query) => {
      const page = await list(id, query);
      return { ...page, memories: page.memories.map(rewrite) };
    };
    const getContext = store.getContext.bind(store);
    store.getContext = async (id, task, options) => {
      const bundle = await getContext(id, task, options);
      return { ...bundle, facts: bundle.facts.map(rewrite) };
    };
  };
  return { store, shared, send, rewriteMetadata };
}

/** The coder has read the project's cache decision, and listens for what becomes of it. */
async function coderReadTheCacheDecision(shared: SharedContext) {
  const { memories } = await shared.decide("project", "cache in use", decision("cache"));
  const [memory] = memories;
  if (memory === undefined) throw new Error("no memory compiled");
  await shared.beforeActing("coder", "Build module cache");
  return { memory, notices: listen(shared, "coder") };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("SharedContext with another writer's metadata", () => {
  it("reports no dispute over a target that is not a string", async () => {
    const { shared, rewriteMetadata } = setUp();
    await shared.decide("planner-a", "Deprecate cache", decision("cache"));
    await shared.decide("planner-b", "Keep cache", decision("cache"));
    rewriteMetadata((metadata) => ({ ...metadata, target: 7 }));
    const read = await shared.beforeActing("coder", "Build module cache");
    expect(read.decisions).toHaveLength(2);
    expect(read.contradictions).toEqual([]);
  });

  it.each<[string, JsonObject]>([
    ["no contradiction list", {}],
    ["a contradiction list that is not a list", { contradicts: "m-1" }],
    ["a contradiction list without a memory id in it", { contradicts: [3, null] }],
  ])("looks nothing up for %s", async (_, extra) => {
    const { store, shared, rewriteMetadata } = setUp();
    await shared.decide("reviewer", "The login form leaks the token", {
      kind: "review_finding",
      target: "login-form",
    });
    rewriteMetadata((metadata) => ({ ...metadata, ...extra }));
    const kinds: Array<string | undefined> = [];
    const list = store.listMemories.bind(store);
    store.listMemories = (id, query) => {
      kinds.push(query?.kind);
      return list(id, query);
    };
    const read = await shared.beforeActing("coder", "Fix the login form token");
    expect(read.bundle.facts).toHaveLength(1);
    expect(read.contradictions).toEqual([]);
    // Only the decisions every read asks for (by target, untargeted, the count's page): no
    // finding's other side to look up.
    expect(new Set(kinds)).toEqual(new Set(["architectural_decision"]));
  });

  it("reports no dispute when every memory a side contradicts is gone", async () => {
    const { shared, rewriteMetadata } = setUp();
    const { memories } = await shared.decide("planner-a", "Deprecate cache", decision("cache"));
    rewriteMetadata((metadata) => ({ ...metadata, contradicts: ["superseded-since"] }));
    const read = await shared.beforeActing("coder", "Build module cache");
    expect(read.decisions.map((memory) => memory.id)).toEqual([memories[0]?.id]);
    expect(read.contradictions).toEqual([]);
  });

  it("reports the dispute while one side contradicts one still active memory", async () => {
    const { shared, rewriteMetadata } = setUp();
    const a = await shared.decide("planner-a", "Deprecate cache", decision("cache"));
    const b = await shared.decide("planner-b", "Keep cache", decision("cache"));
    const [older, newer] = [a.memories[0]?.id, b.memories[0]?.id];
    rewriteMetadata((metadata) =>
      metadata.source === "planner-b"
        ? { ...metadata, contradicts: [older ?? "", "superseded-since"] }
        : { ...metadata, contradicts: ["superseded-since"] },
    );
    const read = await shared.beforeActing("coder", "Build module cache");
    expect(
      read.contradictions.map((dispute) => dispute.memories.map((memory) => memory.id)),
    ).toEqual([[older, newer]]);
  });

  it("tells a reader a memory was superseded without naming a target it does not have", async () => {
    const { shared, send } = setUp();
    const { memory, notices } = await coderReadTheCacheDecision(shared);
    send({
      type: "memory",
      memory: { ...memory, status: "superseded", metadata: { ...memory.metadata, target: 7 } },
    });
    await settle();
    // No target: no active memory is its replacement (the cache decision has one).
    expect(notices).toStrictEqual([
      {
        memoryId: memory.id,
        by: "unknown",
        reason: "architectural_decision was superseded",
      },
    ]);
  });

  it("names neither an author nor a target the contradicting memory does not have", async () => {
    const { shared, send } = setUp();
    const { memory, notices } = await coderReadTheCacheDecision(shared);
    send({
      type: "memory",
      memory: {
        ...memory,
        id: "foreign-1",
        content: "Keep cache",
        metadata: { source: 7, contradicts: [3, memory.id] },
      },
    });
    expect(notices).toStrictEqual([
      {
        memoryId: memory.id,
        by: "unknown",
        reason: 'architectural_decision is disputed: unknown contradicts it ("Keep cache")',
      },
    ]);
  });
});
