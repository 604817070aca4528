import { describe, expect, it } from "vitest";
import type { ScenarioEvent } from "../../src/scenario/scenario-events.js";
import { type Scenario, scenarioSchema } from "../../src/scenario/scenario-schema.js";
import { runToEnd } from "../scenario/support/run-scenario.js";

type Planner = {
  id: string;
  decisions: Array<{ target: string; value: "deprecate" | "keep"; content: string }>;
  startAtMs?: number;
  thinkMs?: number;
};

/** Planners (in team order), one Coder with `modules`, a Reviewer. */
function team(
  planners: Planner[],
  coder: { modules: string[]; startAtMs: number },
  lead?: string,
): Scenario {
  return scenarioSchema.parse({
    ...(lead !== undefined ? { lead } : {}),
    name: "coder-agent",
    title: "Coder agent",
    task: "Rework sessions.",
    agents: [
      ...planners.map((planner) => ({
        role: "planner",
        name: planner.id,
        color: "cyan",
        slice: "Decide.",
        ...planner,
      })),
      { id: "coder", role: "coder", name: "Coder", color: "magenta", slice: "Build.", ...coder },
      { id: "reviewer", role: "reviewer", name: "Reviewer", color: "yellow" },
    ],
    timings: { thinkMs: 1000, moduleMs: 4000, reviewMs: 500 },
    costs: { tokensPerThink: 100, tokensPerModule: 1000, tokensPerReview: 100 },
  });
}

const keepCache = { target: "cache", value: "keep", content: "Keep cache." } as const;
const deprecateCache = {
  target: "cache",
  value: "deprecate",
  content: "Deprecate cache.",
} as const;

function on(events: readonly ScenarioEvent[], module: string): ScenarioEvent[] {
  return events.filter((event) => "module" in event && event.module === module);
}

describe("runCoder", () => {
  describe("work held on a dispute", () => {
    // Planner A keeps cache at 1 s; the Coder starts building it at 2 s; Planner B, who read
    // nothing before deciding, deprecates it at 4 s: two decisions made without seeing each other.
    // The lead is a third Planner, party to neither side (a party never rules its own dispute).
    const uninformed = (first: Planner, second: Planner) =>
      team(
        [first, second, { id: "lead", decisions: [] }],
        { modules: ["cache", "api"], startAtMs: 0 },
        "lead",
      );
    const a = { id: "planner-a", decisions: [keepCache] };
    const b = { id: "planner-b", decisions: [deprecateCache], thinkMs: 4000 };

    it.each(["statewave", "group-chat"] as const)(
      "%s: is paused, not cut short, and resumes where it stopped after the lead rules keep",
      async (mode) => {
        const { summary, events } = await runToEnd(uninformed(a, b), mode);
        const cache = on(events, "cache");
        expect(cache.map((event) => event.type)).toEqual([
          "module-claim",
          "module-start",
          "module-hold",
          "module-resume",
          "module-end",
        ]);
        const [, start, hold, resume, end] = cache;
        if (
          start?.type !== "module-start" ||
          hold?.type !== "module-hold" ||
          resume?.type !== "module-resume" ||
          end?.type !== "module-end"
        ) {
          throw new Error("unexpected events");
        }
        expect(hold).toMatchObject({ causedBy: "planner-b", mechanism: "dispute surfaced" });
        // The progress is kept: what was done before the hold plus what is left is one build.
        expect(hold.msDone).toBe(hold.at - start.at);
        expect(hold.msDone + resume.remainingMs).toBe(start.estimatedMs);
        expect(end.at - resume.at).toBe(resume.remainingMs);
        // Resumed on the lead's ruling, which came after the hold.
        const ruling = events.find(
          (event) => event.type === "decision-write" && event.decisionId?.includes("ruling"),
        );
        expect(ruling).toMatchObject({ agentId: "lead", value: "keep" });
        expect(ruling?.at).toBeGreaterThanOrEqual(hold.at);
        expect(ruling?.at).toBeLessThanOrEqual(resume.at);
        // Nothing cut short, nothing wasted; the referee sees one build, held once.
        expect(summary.wasted).toEqual({ modules: 0, tokens: 0, ms: 0 });
        expect(summary.referee?.verdict).toBe("clean");
        expect(summary.referee?.modules.find((judged) => judged.module === "cache")).toMatchObject({
          fate: "kept",
          built: 1,
          cancelled: 0,
          held: 1,
          outcome: "ok",
        });
      },
    );

    it.each(["statewave", "group-chat"] as const)(
      "%s: stops where it was held when the lead rules the module out, its progress the only waste",
      async (mode) => {
        // Planner B listed first: its deprecation stands.
        const { summary, events } = await runToEnd(
          uninformed({ ...b, id: "planner-b" }, { ...a, id: "planner-a" }),
          mode,
        );
        const cache = on(events, "cache");
        expect(cache.map((event) => event.type)).toEqual([
          "module-claim",
          "module-start",
          "module-hold",
          "module-cancel",
        ]);
        const hold = cache[2];
        const cancel = cache[3];
        if (hold?.type !== "module-hold" || cancel?.type !== "module-cancel") {
          throw new Error("unexpected events");
        }
        expect(cancel.msSpent).toBe(hold.msDone);
        expect(summary.referee?.verdict).toBe("clean");
        expect(summary.wasted.ms).toBe(hold.msDone);
      },
    );

    it.each(["broadcast", "naive"] as const)(
      "%s: nothing reaches the build, so nothing is held (and the dispute stays open)",
      async (mode) => {
        const { summary, events } = await runToEnd(uninformed(a, b), mode);
        expect(events.some((event) => event.type === "module-hold")).toBe(false);
        expect(summary.referee?.verdict).toBe("unresolved");
      },
    );

    it("statewave: with `dispute surfaced` off the same news cuts the build short", async () => {
      const { events } = await runToEnd(uninformed(a, b), "statewave", {
        ablation: { off: ["dispute surfaced"] },
      });
      expect(on(events, "cache").map((event) => event.type)).toContain("module-cancel");
      expect(events.some((event) => event.type === "module-hold")).toBe(false);
    });
  });

  describe("a reversal after the plan is done", () => {
    // The Planner deprecates cache at 1 s; the Coder skips it and is done with its plan at 6.5 s;
    // Planner B joins at 9 s, reads the deprecation and reverses it at 10 s.
    const scenario = team(
      [
        { id: "planner", decisions: [deprecateCache] },
        {
          id: "planner-b",
          decisions: [{ ...keepCache, content: "Keep cache: reports need it." }],
          startAtMs: 9000,
        },
      ],
      { modules: ["cache", "api"], startAtMs: 1500 },
    );

    it.each(["statewave", "group-chat"] as const)(
      "%s: the skip is undone: the Coder, done with its plan, is woken by the reversal and builds it",
      async (mode) => {
        const { summary, events } = await runToEnd(scenario, mode);
        const reversal = events.find(
          (event) => event.type === "decision-write" && event.agentId === "planner-b",
        );
        const apiEnd = events.find(
          (event) => event.type === "module-end" && event.module === "api",
        );
        expect(apiEnd?.at).toBeLessThan(reversal?.at ?? 0);
        expect(on(events, "cache").map((event) => event.type)).toEqual([
          "module-skip",
          "module-claim",
          "module-start",
          "module-end",
        ]);
        const restart = on(events, "cache")[2];
        expect(restart?.at).toBeGreaterThanOrEqual(reversal?.at ?? Number.POSITIVE_INFINITY);
        expect(summary.referee).toMatchObject({ verdict: "clean", droppedModules: [] });
      },
    );
  });
});
