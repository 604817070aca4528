import { describe, expect, it } from "vitest";
import { decomposeTask } from "../../src/agents/decompose-task.js";
import {
  createOfflineBrain,
  describeNothingFound,
  describePlan,
  offlineBrainName,
  planModulesWithOrigin,
} from "../../src/agents/offline-brain.js";
import { everydayPhrasings } from "../support/fixtures/task-phrasings.js";

const brain = createOfflineBrain();
const deprecation = {
  target: "legacy-cache",
  value: "deprecate",
  by: "planner",
  content: "Retire legacy-cache.",
};

describe("createOfflineBrain", () => {
  it("is named as the offline deterministic brain", () => {
    expect(brain.name).toBe(offlineBrainName);
    expect(offlineBrainName).toBe("offline (deterministic)");
  });

  describe("decide", () => {
    it("derives decisions from the Planner's slice", async () => {
      const decisions = await brain.decide({
        agentId: "planner",
        slice: "Deprecate legacy Stripe v1 module. Keep invoice-store.",
        inventory: [],
        known: [],
      });
      expect(decisions).toEqual([
        {
          target: "legacy-stripe-v1",
          value: "deprecate",
          content: "Deprecate legacy Stripe v1 module.",
        },
        { target: "invoice-store", value: "keep", content: "Keep invoice-store." },
      ]);
    });

    it("publishes what the scenario says it intends", async () => {
      const intended = [{ target: "x", value: "deprecate" as const, content: "Deprecate x." }];
      expect(
        await brain.decide({ agentId: "p", slice: "whatever", inventory: [], known: [], intended }),
      ).toEqual(intended);
    });
  });

  describe("planModules", () => {
    it("plans new modules from the slice, then the inventory modules it touches", async () => {
      const modules = await brain.planModules({
        agentId: "coder",
        slice:
          "Build a payment service. Update the existing modules it touches: legacy-stripe-v1, invoice-store.",
        inventory: ["invoice-store", "legacy-stripe-v1", "unrelated"],
      });
      expect(modules).toEqual(["payment-service", "legacy-stripe-v1", "invoice-store"]);
    });
  });

  describe("a --task's slices", () => {
    /** Task → what the Planner decides from its slice, what the Coder plans from its own. */
    it.each([
      ...everydayPhrasings,
      [
        "Retire legacy-cache. Build redis-cache and port legacy-cache to it.",
        ["deprecate legacy-cache"],
        ["redis-cache", "legacy-cache"],
      ],
    ])("%s", async (task, decisions, modules) => {
      const slices = decomposeTask(task);
      const decided = await brain.decide({
        agentId: "planner",
        slice: slices.planner,
        inventory: slices.inventory,
        known: [],
      });
      expect(decided.map((decision) => `${decision.value} ${decision.target}`)).toEqual(decisions);
      expect(
        await brain.planModules({
          agentId: "coder",
          slice: slices.coder,
          inventory: slices.inventory,
        }),
      ).toEqual(modules);
    });

    it("never plans what the Planner deprecates unless the task's work asks for it", async () => {
      const slices = decomposeTask("Build a payment service. Deprecate legacy Stripe v1 module.");
      const modules = await brain.planModules({
        agentId: "coder",
        slice: slices.coder,
        inventory: slices.inventory,
      });
      expect(modules).not.toContain("legacy-stripe-v1");
    });
  });

  describe("planModulesWithOrigin", () => {
    it("says where each planned module came from", () => {
      expect(
        planModulesWithOrigin("Build a payment service. Update invoice-store to call it.", [
          "invoice-store",
        ]).map((entry) => [entry.module, entry.kind, entry.from]),
      ).toEqual([
        ["payment-service", "new", "the task: 'Build a payment service'"],
        [
          "invoice-store",
          "existing",
          "an existing module the task's work mentions: 'Update invoice-store to call it'",
        ],
      ]);
    });
  });

  describe("describePlan", () => {
    const slice = "Build a payment service. Update invoice-store to call it.";

    it("names each module's origin", () => {
      expect(
        describePlan(["payment-service", "invoice-store"], {
          slice,
          inventory: ["invoice-store"],
          brainName: offlineBrainName,
        }),
      ).toBe(
        "Plan: payment-service (from the task), invoice-store (existing, mentioned by the task)",
      );
    });

    it("credits the model with what the rules cannot trace to the slice", () => {
      expect(
        describePlan(["payment-service", "webhooks"], {
          slice,
          inventory: [],
          brainName: "openai/gpt-4o-mini",
        }),
      ).toBe("Plan: payment-service (from the task), webhooks (chosen by openai/gpt-4o-mini)");
    });

    it("shows a scenario's written-down plan as it is", () => {
      expect(
        describePlan(["a", "b"], {
          slice,
          inventory: [],
          intended: ["a", "b"],
          brainName: offlineBrainName,
        }),
      ).toBe("Plan: a, b");
    });

    it("says plainly when there is no work", () => {
      const text = describePlan([], {
        slice: "Hello.",
        inventory: [],
        brainName: offlineBrainName,
      });
      expect(text).toMatch(/^No work found in the task: there is nothing to build; /);
      expect(text).toContain("set LLM_MODEL for a real model");
    });
  });

  describe("describeNothingFound", () => {
    it("says what the offline brain understands when it found no decision", () => {
      const text = describeNothingFound("decision", offlineBrainName);
      expect(text).toMatch(/^No decision found in the task: there is nothing to coordinate; /);
      for (const phrasing of [
        "deprecate/retire/remove/drop/sunset/phase out/keep",
        "replace A with B",
        "migrate/move/switch X from A to B",
        "swap A for B",
        "set LLM_MODEL for a real model",
      ]) {
        expect(text).toContain(phrasing);
      }
    });

    it("does not tell a real model's user to set LLM_MODEL", () => {
      expect(describeNothingFound("decision", "openai/gpt-4o-mini")).toBe(
        "No decision found in the task: there is nothing to coordinate.",
      );
    });
  });

  describe("chooseModuleStep", () => {
    it("builds when it knows nothing against it", async () => {
      expect(
        await brain.chooseModuleStep({
          agentId: "coder",
          module: "legacy-cache",
          decisions: [],
          disputes: [],
        }),
      ).toEqual({
        action: "build",
      });
    });

    it("skips a module it knows is deprecated, naming who decided", async () => {
      expect(
        await brain.chooseModuleStep({
          agentId: "coder",
          module: "legacy-cache",
          decisions: [deprecation],
          disputes: [],
        }),
      ).toEqual({
        action: "skip",
        reason: "deprecated by planner: Retire legacy-cache.",
        causedBy: "planner",
      });
    });

    it("holds a disputed module, naming both sides", async () => {
      const choice = await brain.chooseModuleStep({
        agentId: "coder",
        module: "legacy-cache",
        decisions: [],
        disputes: [
          {
            target: "legacy-cache",
            contenders: [
              { agentId: "planner-a", value: "deprecated-by:planner-a" },
              { agentId: "planner-b", value: "kept-by:planner-b" },
            ],
          },
        ],
      });
      expect(choice).toMatchObject({ action: "skip", causedBy: "planner-a" });
      expect(choice.action === "skip" && choice.reason).toContain(
        "planner-b says kept-by:planner-b",
      );
    });

    it("skips a module someone else claimed", async () => {
      expect(
        await brain.chooseModuleStep({
          agentId: "coder-2",
          module: "m",
          decisions: [],
          disputes: [],
          claimedBy: "coder-1",
        }),
      ).toMatchObject({ action: "skip", causedBy: "coder-1" });
    });
  });

  describe("review", () => {
    it("finds deprecated builds and duplicates, with the builds in vain", async () => {
      const { findings, openDisputes } = await brain.review({
        agentId: "reviewer",
        decisions: [deprecation],
        results: [
          { module: "legacy-cache", agentId: "coder", tokens: 100, ms: 1000 },
          { module: "index", agentId: "coder-1", tokens: 50, ms: 500 },
          { module: "index", agentId: "coder-2", tokens: 60, ms: 600 },
          { module: "fine", agentId: "coder", tokens: 10, ms: 10 },
        ],
      });
      expect(findings).toEqual([
        {
          module: "legacy-cache",
          agents: ["planner", "coder"],
          description: "coder built legacy-cache, which planner deprecated",
          wasted: [{ module: "legacy-cache", agentId: "coder", tokens: 100, ms: 1000 }],
        },
        {
          module: "index",
          agents: ["coder-1", "coder-2"],
          description: "index was built 2 times (coder-1, coder-2)",
          wasted: [{ module: "index", agentId: "coder-2", tokens: 60, ms: 600 }],
        },
      ]);
      expect(openDisputes).toEqual([]);
    });

    it("reports a dispute still open, each side with what it decided, as no collision", async () => {
      const report = await brain.review({
        agentId: "reviewer",
        decisions: [
          { target: "legacy-cache", value: "deprecate", by: "planner-a", content: "Retire it." },
          { target: "legacy-cache", value: "keep", by: "planner-b", content: "Keep it." },
        ],
        results: [{ module: "session-store", agentId: "coder", tokens: 10, ms: 10 }],
        disputes: [
          {
            target: "legacy-cache",
            contenders: [
              { agentId: "planner-a", value: "deprecated-by:planner-a" },
              { agentId: "planner-b", value: "kept-by:planner-b" },
            ],
          },
          // The same disagreement seen from the memories: merged, not reported twice.
          {
            target: "legacy-cache",
            contenders: [
              { agentId: "planner-b", value: "keep" },
              { agentId: "planner-a", value: "deprecate" },
            ],
          },
        ],
      });
      expect(report).toEqual({
        findings: [],
        openDisputes: [
          {
            target: "legacy-cache",
            contenders: [
              { agentId: "planner-a", value: "deprecate" },
              { agentId: "planner-b", value: "keep" },
            ],
          },
        ],
      });
    });
  });
});
