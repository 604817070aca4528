import type { PlannedDecision } from "../coordination/scenario-schema.js";
import type {
  Brain,
  BuildResult,
  ModulePlanInput,
  ModuleStepChoice,
  ModuleStepInput,
  PlannerInput,
  ReviewFinding,
  ReviewInput,
  ReviewReport,
} from "./brain.js";
import { decisionsFromText, type PlannedModule, planFromText } from "./decompose-task.js";
import { openDisputesOf } from "./open-disputes.js";

/** The name the output shows for the offline brain. */
export const offlineBrainName = "offline (deterministic)";

/** The name the offline brain goes by when it says what it understands. */
const offlineVocabulary =
  "the offline brain understands deprecate/retire/remove/drop/sunset/phase out/keep X, " +
  "replace A with B, A is replaced by B, migrate/move/switch X from A to B, swap A for B, " +
  "use B instead of A, build/implement/add/create X and update/fix/refactor X; " +
  "set LLM_MODEL for a real model";

/** Derives decisions from the Planner's slice ("Deprecate X" -> deprecate module X). */
function deriveDecisions(slice: string): PlannedDecision[] {
  return decisionsFromText(slice);
}

/**
 * The module plan the offline brain reads from a Coder's slice, each module with where it came
 * from: what the slice's work asks to build, then the existing modules (`inventory`) that work
 * updates or mentions, in the order the slice gives them. Nothing comes from a decision alone.
 */
export function planModulesWithOrigin(
  slice: string,
  inventory: readonly string[],
): PlannedModule[] {
  return planFromText(slice, inventory);
}

function deriveModules(slice: string, inventory: readonly string[]): string[] {
  return planModulesWithOrigin(slice, inventory).map((entry) => entry.module);
}

/**
 * What an agent says when its brain found nothing: no decision (the Planner) or no work (the
 * Coder). The offline brain also says which phrasings it understands, since a task it cannot read
 * is the likeliest reason.
 */
export function describeNothingFound(what: "decision" | "work", brainName: string): string {
  const text =
    what === "decision"
      ? "No decision found in the task: there is nothing to coordinate"
      : "No work found in the task: there is nothing to build";
  return brainName === offlineBrainName ? `${text}; ${offlineVocabulary}.` : `${text}.`;
}

/**
 * The Coder's plan for people: "Plan: payment-service (from the task), invoice-store (existing,
 * mentioned by the task)". Modules the scenario wrote down are shown as they are; modules the
 * rules cannot trace to the slice were chosen by the brain (a model). An empty plan says so in
 * plain words.
 */
export function describePlan(
  modules: readonly string[],
  input: {
    slice: string;
    inventory: readonly string[];
    intended?: readonly string[] | undefined;
    brainName: string;
  },
): string {
  if (modules.length === 0) return describeNothingFound("work", input.brainName);
  if (input.intended !== undefined) return `Plan: ${modules.join(", ")}`;
  const origins = planModulesWithOrigin(input.slice, input.inventory);
  const described = modules.map((module) => {
    const origin = origins.find((entry) => entry.module === module);
    if (origin === undefined) return `${module} (chosen by ${input.brainName})`;
    return origin.kind === "new"
      ? `${module} (from the task)`
      : `${module} (existing, mentioned by the task)`;
  });
  return `Plan: ${described.join(", ")}`;
}

function chooseStep(input: ModuleStepInput): ModuleStepChoice {
  const dispute = input.disputes.find((candidate) => candidate.target === input.module);
  if (dispute) {
    const sides = dispute.contenders
      .map((contender) => `${contender.agentId} says ${contender.value}`)
      .join(", ");
    return {
      action: "skip",
      reason: `disputed (${sides}); held until someone resolves it`,
      causedBy: dispute.contenders[0]?.agentId ?? null,
    };
  }
  const dependencies = new Set(input.dependsOn ?? []);
  const retiring = (decision: (typeof input.decisions)[number]) =>
    decision.value === "deprecate" || decision.value === "replace";
  const own = input.decisions.find(
    (decision) => decision.target === input.module && retiring(decision),
  );
  if (own?.value === "replace" && own.replacement !== undefined) {
    return {
      action: "skip",
      reason: `replaced by ${own.replacement} (${own.by}: ${own.content})`,
      causedBy: own.by,
      moveTo: own.replacement,
    };
  }
  if (own) {
    return { action: "skip", reason: `deprecated by ${own.by}: ${own.content}`, causedBy: own.by };
  }
  const upstream = input.decisions.find(
    (decision) => dependencies.has(decision.target) && retiring(decision),
  );
  if (upstream) {
    return {
      action: "skip",
      reason: `depends on ${upstream.target}, deprecated by ${upstream.by}: ${upstream.content}`,
      causedBy: upstream.by,
    };
  }
  if (input.claimedBy !== undefined && input.claimedBy !== input.agentId) {
    return {
      action: "skip",
      reason: `already claimed by ${input.claimedBy}`,
      causedBy: input.claimedBy,
    };
  }
  return { action: "build" };
}

function collisionsIn(input: ReviewInput): ReviewFinding[] {
  const findings: ReviewFinding[] = [];
  const byModule = new Map<string, BuildResult[]>();
  for (const result of input.results) {
    byModule.set(result.module, [...(byModule.get(result.module) ?? []), result]);
  }
  for (const [module, builds] of byModule) {
    const deprecations = input.decisions.filter(
      (decision) => decision.target === module && decision.value === "deprecate",
    );
    const builders = builds.map((build) => build.agentId);
    const first = deprecations[0];
    if (first !== undefined) {
      const contested = input.decisions.some(
        (decision) => decision.target === module && decision.value !== "deprecate",
      );
      findings.push({
        module,
        agents: [...new Set([first.by, ...builders])],
        description:
          `${builders.join(" and ")} built ${module}, which ${first.by} deprecated` +
          (contested ? " (the planners contradict each other on it)" : ""),
        wasted: builds,
      });
    } else if (builds.length > 1) {
      findings.push({
        module,
        agents: builders,
        description: `${module} was built ${builds.length} times (${builders.join(", ")})`,
        wasted: builds.slice(1),
      });
    }
  }
  return findings;
}

/**
 * The default brain: rules instead of a model, so runs need no key and no network and give the
 * same answers every time. It only knows what its agent was told; the coordination layer decides
 * what that is.
 */
export function createOfflineBrain(): Brain {
  return {
    name: offlineBrainName,
    reproducible: true,
    decide: async (input: PlannerInput) =>
      input.intended ? [...input.intended] : deriveDecisions(input.slice),
    planModules: async (input: ModulePlanInput) =>
      input.intended ? [...input.intended] : deriveModules(input.slice, input.inventory),
    chooseModuleStep: async (input: ModuleStepInput) => chooseStep(input),
    review: async (input: ReviewInput): Promise<ReviewReport> => ({
      findings: collisionsIn(input),
      openDisputes: openDisputesOf(input),
    }),
  };
}
