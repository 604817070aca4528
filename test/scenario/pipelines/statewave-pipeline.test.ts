import { describe, expect, it } from "vitest";
import { SharedState } from "../../../src/crdt/shared-state.js";
import { createVirtualClock } from "../../../src/scenario/clock.js";
import { loadScenario } from "../../../src/scenario/load-scenario.js";
import { createStatewaveCoordination } from "../../../src/scenario/pipelines/statewave-pipeline.js";
import { mechanisms } from "../../../src/scenario/scenario-events.js";
import { deferred } from "../../support/deferred.js";
import { embeddedStoresPerTest } from "../../support/embedded-stores.js";
import { runToEnd } from "../support/run-scenario.js";

const memoryStore = embeddedStoresPerTest();

describe("the statewave pipeline", () => {
  describe("options.ablation", () => {
    // Each case a mechanism wins: switched off alone, the collision comes back; the messages-only
    // modes, which lack it, collide too (a shared-context win that is not a mechanism's is a tie).
    it.each([
      ["auth-jwt", "read-before-act"],
      ["payments-stripe", "read-before-act"],
      ["late-decision", "mid-build invalidation"],
      ["two-coders", "atomic claim"],
      ["late-joiner", "history for a late joiner"],
    ] as const)("%s collides without %s, and only then", async (name, mechanism) => {
      const scenario = await loadScenario(name);
      const whole = await runToEnd(scenario, "statewave", { store: memoryStore() });
      const without = await runToEnd(scenario, "statewave", {
        store: memoryStore(),
        ablation: { off: [mechanism] },
      });
      expect(whole.summary.collision).toBe(false);
      expect(whole.summary.avoidedBy[mechanism]).toBeGreaterThan(0);
      expect(without.summary.collision).toBe(true);
      expect(without.summary.wastedModules).toEqual(scenario.expected?.naive.wastedModules);
      expect(without.summary.collisionCause).toBe(mechanism);
      // Every other mechanism switched off leaves this case alone.
      const others = mechanisms.filter((other) => other !== mechanism);
      const onlyThis = await runToEnd(scenario, "statewave", {
        store: memoryStore(),
        ablation: { off: others },
      });
      expect(onlyThis.summary.collision).toBe(false);
      // The Planner still published: the ablation removes a mechanism, not the decision.
      expect(without.events.some((event) => event.type === "decision-write")).toBe(true);
    });

    it.each([
      ["late-decision", "mid-build invalidation"],
      ["two-coders", "atomic claim"],
      ["late-joiner", "history for a late joiner"],
    ] as const)("%s: broadcast lacks %s and collides for that reason", async (name, mechanism) => {
      const { summary } = await runToEnd(await loadScenario(name), "broadcast", {
        store: memoryStore(),
      });
      expect(summary.collision).toBe(true);
      expect(summary.collisionCause).toBe(mechanism);
    });

    it("many-agents: a shared-context read stays within its budget; unbounded, it grows", async () => {
      const scenario = await loadScenario("many-agents");
      const bounded = await runToEnd(scenario, "statewave", { store: memoryStore() });
      const unbounded = await runToEnd(scenario, "statewave", {
        store: memoryStore(),
        ablation: { off: ["bounded context"] },
      });
      const broadcast = await runToEnd(scenario, "broadcast", { store: memoryStore() });
      const budget = scenario.contextBudgetTokens;
      expect(bounded.summary.read.largest).toBeLessThanOrEqual(budget + 50);
      expect(unbounded.summary.read.largest).toBeGreaterThan(budget + 50);
      expect(broadcast.summary.read.largest).toBeGreaterThan(budget + 50);
      expect(broadcast.summary.read.tokens).toBeGreaterThan(bounded.summary.read.tokens);
    });
  });

  describe("auth-jwt", () => {
    it("the Coder skips the deprecated module because it read the Planner's decision", async () => {
      const { events } = await runToEnd(await loadScenario("auth-jwt"), "statewave", {
        store: memoryStore(),
      });
      const skip = events.find((event) => event.type === "module-skip");
      expect(skip).toMatchObject({
        agentId: "coder",
        module: "legacy-session-token",
        causedBy: "planner",
      });
      const readBefore = events
        .slice(0, events.indexOf(skip as (typeof events)[number]))
        .filter((event) => event.type === "context-read" && event.agentId === "coder")
        .at(-1);
      expect(readBefore).toMatchObject({ task: "Build module legacy-session-token" });
      expect(readBefore?.type === "context-read" && readBefore.decisions).toContainEqual(
        expect.stringContaining("planner: Deprecate legacy-session-token"),
      );
    });
  });

  describe("late-decision", () => {
    it.each([1, 7, 42])(
      "cuts the doomed build short: 0 < waste < naive waste (seed %i)",
      async (seed) => {
        const scenario = await loadScenario("late-decision");
        const naive = await runToEnd(scenario, "naive", { seed, store: memoryStore() });
        const shared = await runToEnd(scenario, "statewave", { seed, store: memoryStore() });
        expect(shared.summary.wasted.tokens).toBeGreaterThan(0);
        expect(shared.summary.wasted.ms).toBeGreaterThan(0);
        expect(shared.summary.wasted.tokens).toBeLessThan(naive.summary.wasted.tokens);
        expect(shared.summary.wasted.ms).toBeLessThan(naive.summary.wasted.ms);
        const cancel = shared.events.find((event) => event.type === "module-cancel");
        const decision = shared.events.find((event) => event.type === "decision-write");
        expect(cancel).toMatchObject({
          agentId: "coder",
          module: "legacy-cache",
          causedBy: "planner",
        });
        // Cancelled when the decision landed, not before the work started.
        expect(cancel?.at).toBe(decision?.at);
        const start = shared.events.find(
          (event) => event.type === "module-start" && event.module === "legacy-cache",
        );
        expect(start?.at).toBeLessThan(decision?.at ?? 0);
      },
    );
  });

  describe("late-decision memories", () => {
    it("keeps one active story: the decision replaces the inventory memory, nothing escalated", async () => {
      const store = memoryStore();
      const { runId } = await runToEnd(await loadScenario("late-decision"), "statewave", {
        store,
      });
      const { memories } = await store.getTimeline(runId);
      const statusOf = (type: string) =>
        memories
          .filter((memory) => memory.metadata.episodeType === type)
          .map((memory) => memory.status);
      // The Planner read the inventory memory, so its decision replaced it.
      expect(statusOf("architectural_decision").sort()).toEqual(["active", "superseded"]);
      // A decision is not a claim: it never contends with the Coder's claim in a register.
      expect(statusOf("escalation")).toEqual([]);
      expect(memories.some((memory) => memory.metadata.contradicts !== undefined)).toBe(false);
    });
  });

  describe("two-coders", () => {
    it("escalates the concurrent claims, builds once, and merges both coders' notes and tags", async () => {
      const store = memoryStore();
      const { events, runId } = await runToEnd(await loadScenario("two-coders"), "statewave", {
        store,
      });
      const escalation = events.find((event) => event.type === "escalation");
      expect(escalation).toMatchObject({ namespace: "modules", key: "search-index" });
      expect(
        escalation?.type === "escalation" &&
          escalation.contenders.map((contender) => contender.agentId).sort(),
      ).toEqual(["coder-1", "coder-2"]);
      expect(events).toContainEqual(
        expect.objectContaining({ type: "escalation-resolve", by: "planner" }),
      );
      const builds = events.filter(
        (event) => event.type === "module-end" && event.module === "search-index",
      );
      expect(builds).toHaveLength(1);

      const inspector = await SharedState.open({
        store,
        subjectId: runId,
        agentId: "inspector",
        live: false,
      });
      const notes = String(inspector.get("project", "notes"));
      expect(notes).toContain("coder-1 built");
      expect(notes).toContain("coder-2 built");
      expect(inspector.get("project", "tags")).toEqual(
        expect.arrayContaining(["query-parser", "query-api", "search-index"]),
      );
      expect(inspector.escalations().filter((item) => item.key !== "search-index")).toEqual([]);
      await inspector.close();
    });
  });

  describe("disagreeing-planners", () => {
    // With no lead to rule, the dispute stays open: what the mechanism alone does.
    const disputeWithNoLead = async () => ({
      ...(await loadScenario("disagreeing-planners")),
      lead: null,
    });

    it("with a lead: it rules after reading both sides, the ruling overrules both, the run is clean", async () => {
      const { events, summary } = await runToEnd(
        await loadScenario("disagreeing-planners"),
        "statewave",
        { store: memoryStore() },
      );
      expect(events).toContainEqual(
        expect.objectContaining({
          type: "decision-write",
          agentId: "tech-lead",
          target: "legacy-cache",
          value: "deprecate",
          decisionId: "tech-lead#ruling-legacy-cache",
        }),
      );
      expect(summary.referee?.verdict).toBe("clean");
      expect(summary.referee?.openDisputes).toEqual([]);
    });

    it("surfaces the dispute with both planners named, leaves it open, and holds the module", async () => {
      const { events, summary } = await runToEnd(await disputeWithNoLead(), "statewave", {
        store: memoryStore(),
      });
      // Decisions live in the memories, not in a register: the dispute is theirs, never escalated
      // to a lead who might be one of the sides.
      expect(events.some((event) => event.type === "escalation-resolve")).toBe(false);
      const coderRead = events.find(
        (event) =>
          event.type === "context-read" &&
          event.agentId === "coder" &&
          event.task === "Build module legacy-cache",
      );
      expect(coderRead?.type === "context-read" && coderRead.disputes).toEqual([
        expect.stringMatching(/legacy-cache: planner-[ab] says .* vs planner-[ab] says/),
      ]);
      expect(events).toContainEqual(
        expect.objectContaining({
          type: "module-skip",
          module: "legacy-cache",
          mechanism: "dispute surfaced",
        }),
      );
      expect(summary.openDisputes).toBe(1);
    });

    it.each([1, 7, 42])(
      "nobody silently wins in the memories either: both decisions stay active (seed %i)",
      async (seed) => {
        const store = memoryStore();
        const { runId } = await runToEnd(await disputeWithNoLead(), "statewave", {
          store,
          seed,
        });
        const decisions = await store.searchMemories(runId, { kind: "architectural_decision" });
        const bySource = new Map(
          decisions.map((memory) => [String(memory.metadata.source), memory] as const),
        );
        expect([...bySource.keys()].sort()).toEqual(["planner-a", "planner-b"]);
        // The later of the two records that it contradicts the earlier; neither superseded it.
        const [earlier, later] = [...decisions].reverse();
        expect(later?.metadata.contradicts).toEqual([earlier?.id]);
        // The inventory memory ("legacy-cache is an existing module") was read by both Planners,
        // so a Planner's decision does supersede it.
        const inventory = (await store.getTimeline(runId)).memories.find(
          (memory) => memory.metadata.source === "project",
        );
        expect(inventory?.status).toBe("superseded");
      },
    );

    it("the Reviewer names the open dispute and does not say all is well", async () => {
      const { events, summary } = await runToEnd(await disputeWithNoLead(), "statewave", {
        store: memoryStore(),
      });
      const reviewerLines = events.flatMap((event) =>
        event.type === "agent-log" && event.agentId === "reviewer" ? [event] : [],
      );
      const dispute = reviewerLines.find((line) => line.openDispute !== undefined);
      expect(dispute?.text).toMatch(
        /^Open dispute → legacy-cache: Planner [AB] \((deprecate|keep)\) vs Planner [AB] \((deprecate|keep)\); needs a decision$/,
      );
      expect(dispute?.text).toContain("Planner A (deprecate)");
      expect(dispute?.text).toContain("Planner B (keep)");
      expect(dispute?.openDispute?.target).toBe("legacy-cache");
      expect(reviewerLines.map((line) => line.text)).not.toContain(
        "No conflicts: the work matches the decisions.",
      );
      expect(reviewerLines.map((line) => line.text)).toContain(
        "No collisions: no work was wasted, but 1 dispute is still open.",
      );
      // An open dispute held the work: it is not a collision.
      expect(summary.collision).toBe(false);
      expect(events.some((event) => event.type === "collision")).toBe(false);
      // The Reviewer's own read showed the dispute with the decided values.
      const reviewRead = events.find(
        (event) => event.type === "context-read" && event.agentId === "reviewer",
      );
      expect(reviewRead?.type === "context-read" && reviewRead.disputes).toEqual([
        expect.stringMatching(/^legacy-cache: planner-[ab] says (deprecate|keep) vs planner-[ab]/),
      ]);
    });

    it("says all is well when no dispute is open (auth-jwt)", async () => {
      const { events } = await runToEnd(await loadScenario("auth-jwt"), "statewave", {
        store: memoryStore(),
      });
      expect(events).toContainEqual(
        expect.objectContaining({
          type: "agent-log",
          agentId: "reviewer",
          text: "No conflicts: the work matches the decisions.",
        }),
      );
    });
  });

  describe("arbitrate", () => {
    it("a settle that fails before `until` is no unhandled rejection and fails arbitrate after", async () => {
      const store = memoryStore();
      const subjectId = "run-arbitrate-fails";
      const coordination = await createStatewaveCoordination({
        store,
        subjectId,
        scenario: await loadScenario("two-coders"),
        emit: () => {},
        clock: createVirtualClock(),
        now: () => 0,
      });
      const failure = new Error("the arbiter's model failed");
      const asked = deferred();
      const until = deferred();
      const arbitrating = coordination.arbitrate(
        "planner",
        () => {
          asked.resolve();
          throw failure;
        },
        until.promise,
      );
      // Two replicas that have not seen each other claim one module: an escalation.
      const [first, second] = await Promise.all(
        ["coder-1", "coder-2"].map((agentId) =>
          SharedState.open({ store, subjectId, agentId, live: false }),
        ),
      );
      await first?.put("modules", "search-index", "claimed-by:coder-1");
      await second?.put("modules", "search-index", "claimed-by:coder-2");
      await asked.promise;
      // Give Node a macrotask to notice an unhandled rejection (vitest fails the run on one).
      await new Promise((resolve) => setImmediate(resolve));
      until.resolve();
      await expect(arbitrating).rejects.toBe(failure);
      await first?.close();
      await second?.close();
      await coordination.close();
    });
  });
});
