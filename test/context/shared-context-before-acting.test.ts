import { describe, expect, it } from "vitest";
import { countedPage } from "../../src/context/reads-by-target.js";
import { targetsNamedIn } from "../../src/context/task-targets.js";
import { decision, sharedContextSetups } from "./support/shared-context-setups.js";

const { setUp, setUpWithState, raiseDispute } = sharedContextSetups();

describe("SharedContext", () => {
  describe("beforeActing", () => {
    it("reports only decisions in `decisions`, and passes the token budget on", async () => {
      const { shared } = setUp();
      await shared.decide("coder", "Built the login form with a long description", {
        kind: "implementation_note",
        target: "login-form",
      });
      await shared.decide("planner", "Use RS256", decision("jwt"));
      const read = await shared.beforeActing("coder", "login form jwt");
      expect(read.decisions.map((memory) => memory.content)).toEqual(["Use RS256"]);
      expect(read.bundle.facts).toHaveLength(2);
      expect(read.assembledContext).toBe(read.bundle.assembledContext);

      const small = await shared.beforeActing("coder", "login form jwt", { maxTokens: 8 });
      expect(small.bundle.facts).toEqual([]);
      // The budget holds no memory, yet the newest decision on a target the task names is in.
      expect(small.assembledContext).toBe(
        "## Task\nlogin form jwt\n\n## Decisions on what the task names\n- Use RS256 (planner, on jwt)\n",
      );
      expect(small.namedDecisions.map((memory) => memory.content)).toEqual(["Use RS256"]);
      expect(small.decisionsLeftOut).toBe(0);

      const unnamed = await shared.beforeActing("coder", "login form", { maxTokens: 8 });
      expect(unnamed.assembledContext).toBe(
        "## Task\nlogin form\n\n1 other active decision is not in this context (left out for the token budget); name a target in the task to read its decisions, get_decision_history for one.\n",
      );
      expect(unnamed.decisionsLeftOut).toBe(1);
    });

    it("reports as changed what the caller itself had not received, per caller", async () => {
      const { shared } = setUp();
      await shared.decide("planner", "Use RS256", decision("jwt"));
      expect((await shared.beforeActing("coder", "jwt")).changedSinceLastRead).toHaveLength(1);
      expect((await shared.beforeActing("reviewer", "jwt")).changedSinceLastRead).toHaveLength(1);
      expect((await shared.beforeActing("coder", "jwt")).changedSinceLastRead).toEqual([]);
    });
  });

  describe("beforeActing: contradictions", () => {
    it("looks up the other sides of a dispute that is not about decisions", async () => {
      const { shared } = setUp();
      const a = await shared.decide("reviewer-a", "The login form leaks the token", {
        kind: "review_finding",
        target: "login-form",
      });
      const b = await shared.decide("reviewer-b", "The login form is fine", {
        kind: "review_finding",
        target: "login-form",
      });
      const read = await shared.beforeActing("coder", "fix the login form token");
      expect(read.contradictions).toEqual([
        { kind: "review_finding", target: "login-form", memories: [a.memories[0], b.memories[0]] },
      ]);
    });

    it("reads the decisions on what the task names, and every dispute's sides exactly by target", async () => {
      const { store, shared } = setUp();
      for (const target of ["login-form", "signup-form"]) {
        for (const reviewer of ["reviewer-a", "reviewer-b"]) {
          await shared.decide(reviewer, `${reviewer} on the ${target}`, {
            kind: "review_finding",
            target,
          });
        }
      }
      await shared.decide("planner-a", "Deprecate cache", decision("cache"));
      await shared.decide("planner-b", "Keep cache", decision("cache"));
      const asked: string[] = [];
      const list = store.listMemories.bind(store);
      store.listMemories = (id, query) => {
        const which = query?.untargeted
          ? "(untargeted)"
          : (query?.targets?.join(",") ?? `(newest ${query?.limit})`);
        asked.push(`${query?.kind} ${which}`);
        return list(id, query);
      };
      const search = store.searchMemories.bind(store);
      store.searchMemories = (id, options) => {
        asked.push(`search ${options?.kind}`);
        return search(id, options);
      };
      const read = await shared.beforeActing("coder", "login form signup form cache");
      expect(read.contradictions.map((dispute) => dispute.target).sort()).toEqual([
        "cache",
        "login-form",
        "signup-form",
      ]);
      // The decisions on the task's words (one indexed read), the untargeted ones, one page to
      // count the rest; then each dispute's sides by its target. No search, no whole list.
      expect(asked.sort()).toEqual([
        `architectural_decision (newest ${countedPage})`,
        "architectural_decision (untargeted)",
        "architectural_decision cache",
        `architectural_decision ${targetsNamedIn("login form signup form cache").join(",")}`,
        "review_finding login-form",
        "review_finding signup-form",
      ]);
    });

    it("reports one dispute per kind and target, with every side oldest first", async () => {
      const { shared } = setUp();
      const sides = [];
      for (const [planner, content] of [
        ["planner-a", "Deprecate cache"],
        ["planner-b", "Keep cache"],
        ["planner-c", "Shard cache"],
      ] as const) {
        sides.push((await shared.decide(planner, content, decision("cache"))).memories[0]);
      }
      await shared.decide("planner-d", "Use RS256", decision("jwt"));
      const read = await shared.beforeActing("coder", "Build module cache");
      expect(read.contradictions).toEqual([
        { kind: "architectural_decision", target: "cache", memories: sides },
      ]);
    });
  });

  describe("beforeActing: disputes", () => {
    it("reports the shared state's open escalations, not the resolved ones", async () => {
      const { store, state, shared } = await setUpWithState();
      await raiseDispute(store, "search-index");
      const read = await shared.beforeActing("coder-1", "Build module search-index");
      expect(read.disputes).toEqual([
        expect.objectContaining({
          namespace: "modules",
          key: "search-index",
          reason: "concurrent-register",
        }),
      ]);
      const contenders = read.disputes[0]?.contenders ?? [];
      expect(contenders.map((contender) => contender.agentId).sort()).toEqual([
        "coder-1",
        "coder-2",
      ]);
      await state.resolve(read.disputes[0]?.id ?? "", "one", { by: "lead" });
      expect((await shared.beforeActing("coder-1", "Build module search-index")).disputes).toEqual(
        [],
      );
    });
  });
});
