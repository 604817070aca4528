import { afterEach, describe, expect, it } from "vitest";
import { authorityOf } from "../../../src/context/authority.js";
import { SharedContext } from "../../../src/context/shared-context.js";
import { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { createStatewaveEmulator } from "../../../src/server/compat/statewave-v0-7-1.js";
import { plannersDisagree } from "../../support/fixtures/planners-disagree.js";
import { waitFor } from "../store-contract.js";
import { decision, listen } from "../support/shared-context-setups.js";

/**
 * shared-ctx's knowledge layer against what a real Statewave v0.7.1 returns (the emulation,
 * checked against the recorded fixtures in test/server/compat-statewave-v0-7-1.test.ts):
 * `episode_summary` memories with `metadata: {}`, linked to their episodes by `source_episode_ids`.
 */
describe("StatewaveStore on a Statewave v0.7.1 server", () => {
  const stores: StatewaveStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  function setUp() {
    const emulator = createStatewaveEmulator();
    const connect = () => {
      const store = new StatewaveStore({ fetch: emulator.clientFetch, pollIntervalMs: 5 });
      stores.push(store);
      return store;
    };
    return { emulator, connect };
  }

  it("types a decision from its source episode: kind, target, author", async () => {
    const { connect } = setUp();
    const store = connect();
    const shared = new SharedContext({ store, subjectId: "run" });
    const { memories } = await shared.decide("planner", "Deprecate legacy-session-token.", {
      kind: "architectural_decision",
      target: "legacy-session-token",
      payload: { value: "deprecate" },
    });
    expect(memories).toHaveLength(1);
    expect(memories[0]).toMatchObject({
      kind: "architectural_decision",
      metadata: { source: "planner", target: "legacy-session-token" },
    });
    const read = await shared.beforeActing("coder", "implement the login endpoint");
    expect(read.decisions.map((memory) => memory.content)).toEqual([
      "Deprecate legacy-session-token.",
    ]);
    expect(read.decisions[0]?.metadata.target).toBe("legacy-session-token");
    await shared.close();
  });

  it("reads another process's decisions through the timeline (nothing cached locally)", async () => {
    const { connect } = setUp();
    const writer = new SharedContext({ store: connect(), subjectId: "run" });
    await writer.decide("planner", "Keep the cache.", decision("cache"));
    const reader = new SharedContext({ store: connect(), subjectId: "run" });
    const read = await reader.beforeActing("coder", "cache");
    expect(read.decisions).toHaveLength(1);
    expect(read.decisions[0]).toMatchObject({
      kind: "architectural_decision",
      metadata: { source: "planner", target: "cache" },
    });
    await writer.close();
    await reader.close();
  });

  it("reports two planners who had not read each other as a dispute; both stay decisions", async () => {
    const { connect } = setUp();
    const shared = new SharedContext({ store: connect(), subjectId: "run" });
    await plannersDisagree(shared, "legacy-session-token", [
      "Deprecate legacy-session-token.",
      "Keep legacy-session-token for mobile.",
    ]);
    const read = await shared.beforeActing("coder", "login");
    expect(read.decisions).toHaveLength(2);
    expect(read.contradictions).toHaveLength(1);
    expect(read.contradictions[0]?.target).toBe("legacy-session-token");
    expect(read.contradictions[0]?.memories.map((memory) => memory.metadata.source)).toEqual([
      "planner-a",
      "planner-b",
    ]);
    await shared.close();
  });

  it("supersedes a decision its author restates, and tells whoever read it", async () => {
    const { connect } = setUp();
    const shared = new SharedContext({ store: connect(), subjectId: "run" });
    await shared.decide(
      "planner",
      "Deprecate legacy-session-token.",
      decision("legacy-session-token"),
    );
    const notices = listen(shared, "coder");
    await shared.beforeActing("coder", "login");
    await shared.decide(
      "planner",
      "Keep legacy-session-token after all.",
      decision("legacy-session-token"),
    );
    const read = await shared.beforeActing("coder", "login");
    expect(read.decisions.map((memory) => memory.content)).toEqual([
      "Keep legacy-session-token after all.",
    ]);
    expect(read.contradictions).toEqual([]);
    await waitFor(() => expect(notices).toHaveLength(1));
    expect(notices[0]).toMatchObject({ target: "legacy-session-token", by: "planner" });
    expect(notices[0]?.reason).toContain("superseded by planner");
    await shared.close();
  });

  it("a decision that declares it read the older one settles the dispute", async () => {
    const { connect } = setUp();
    const shared = new SharedContext({ store: connect(), subjectId: "run" });
    await shared.decide("planner-a", "Deprecate x.", decision("x"));
    await shared.beforeActing("planner-b", "x");
    await shared.decide("planner-b", "Keep x.", decision("x"));
    const read = await shared.beforeActing("coder", "x");
    expect(read.decisions.map((memory) => memory.content)).toEqual(["Keep x."]);
    await shared.close();
  });
  it("keeps a person's decision against an agent's later, informed one (a dispute), until a person settles it", async () => {
    const { connect } = setUp();
    const shared = new SharedContext({ store: connect(), subjectId: "run" });
    const { memories: person } = await shared.decide("alice", "Sessions stay server-side.", {
      kind: "architectural_decision",
      target: "session-storage",
      authority: "user",
    });
    expect(person[0]?.metadata.authority).toBe("user");
    // The agent reads the person's decision first (informed) and decides otherwise, later.
    await shared.beforeActing("planner", "session storage");
    await shared.decide(
      "planner",
      "Move session state into signed JWT cookies.",
      decision("session-storage"),
    );
    const disputed = await shared.beforeActing("coder", "session storage");
    expect(disputed.decisions.map((memory) => memory.content).sort()).toEqual([
      "Move session state into signed JWT cookies.",
      "Sessions stay server-side.",
    ]);
    expect(disputed.contradictions).toHaveLength(1);
    expect(
      disputed.contradictions[0]?.memories.map((memory) => [
        memory.metadata.source,
        authorityOf(memory.metadata),
      ]),
    ).toEqual([
      ["alice", "user"],
      ["planner", "agent"],
    ]);
    // A second store (another process) sees the same: the rule is applied from the episodes.
    const other = new SharedContext({ store: connect(), subjectId: "run" });
    expect((await other.beforeActing("reviewer", "session storage")).contradictions).toHaveLength(
      1,
    );
    // A person who read both settles it.
    await shared.beforeActing("bob", "session storage");
    await shared.decide("bob", "Keep server-side sessions; revisit JWT next quarter.", {
      kind: "architectural_decision",
      target: "session-storage",
      authority: "user",
    });
    const settled = await shared.beforeActing("coder", "session storage");
    expect(settled.decisions.map((memory) => memory.content)).toEqual([
      "Keep server-side sessions; revisit JWT next quarter.",
    ]);
    expect(settled.contradictions).toEqual([]);
    await other.close();
    await shared.close();
  });
});
