import {
  decisionFromSentence,
  moduleFromSentence,
  splitSentences,
} from "../scenario/decompose-task.js";
import type { PlannedDecision } from "../scenario/scenario-schema.js";
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
import { openDisputesOf } from "./open-disputes.js";

/** The name the output shows for the offline brain. */
export const offlineBrainName = "offline (deterministic)";

/** Derives decisions from the Planner's slice ("Deprecate X" -> deprecate module X). */
function deriveDecisions(slice: string): PlannedDecision[] {
  const decisions: PlannedDecision[] = [];
  for (const sentence of splitSentences(slice)) {
    const decision = decisionFromSentence(sentence);
    if (decision && !decisions.some((known) => known.target === decision.target)) {
      decisions.push(decision);
    }
  }
  return decisions;
}

/** New modules its slice asks for, then the existing modules the slice touches, in order. */
function deriveModules(slice: string, inventory: readonly string[]): string[] {
  const modules: string[] = [];
  const add = (name: string) => {
    if (!modules.includes(name)) modules.push(name);
  };
  for (const sentence of splitSentences(slice)) {
    const module = moduleFromSentence(sentence);
    if (module !== undefined && !inventory.includes(module)) add(module);
  }
  const lower = slice.toLowerCase();
  const touched = inventory
    .map((name) => ({ name, index: lower.indexOf(name) }))
    .filter((entry) => entry.index >= 0)
    .sort((a, b) => a.index - b.index);
  for (const entry of touched) add(entry.name);
  return modules;
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
  const deprecation = input.decisions.find(
    (decision) => decision.target === input.module && decision.value === "deprecate",
  );
  if (deprecation) {
    return {
      action: "skip",
      reason: `deprecated by ${deprecation.by}: ${deprecation.content}`,
      causedBy: deprecation.by,
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
