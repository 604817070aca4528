import type { LanguageModel } from "ai";
import { z } from "zod";
import { decisionValueSchema, moduleNameSchema } from "../coordination/scenario-schema.js";
import { generateStructured } from "../llm/generate-structured.js";
import type {
  Brain,
  BrainCallOptions,
  ModulePlanInput,
  ModuleStepInput,
  PlannerInput,
  ReviewFinding,
  ReviewInput,
} from "./brain.js";
import { openDisputesOf } from "./open-disputes.js";

/** Options of {@link createLlmBrain}. */
export interface LlmBrainOptions {
  model: LanguageModel;
  /** Shown in the output, e.g. "openai/gpt-4o-mini". */
  name: string;
  timeoutMs: number;
  maxRetries: number;
  baseURL?: string;
}

const decisionsSchema = z.object({
  decisions: z.array(
    z.object({ target: moduleNameSchema, value: decisionValueSchema, content: z.string().min(1) }),
  ),
});
const modulesSchema = z.object({ modules: z.array(moduleNameSchema).min(1) });
const stepSchema = z.object({
  action: z.enum(["build", "skip"]),
  reason: z.string(),
  /** The agent whose decision made the Coder skip, or "" when none. */
  causedBy: z.string(),
});
const reviewSchema = z.object({
  findings: z.array(
    z.object({ module: moduleNameSchema, agents: z.array(z.string()), description: z.string() }),
  ),
});

const system =
  "You are one agent in a team of software agents (planners, coders, reviewers) working on one " +
  "codebase. Answer only with JSON matching the requested schema. Module names are kebab-case.";

const json = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * A brain that asks a language model at every step (zod-typed structured output through the
 * AI SDK). It sees exactly what the offline brain sees; the coordination layer decides what that is.
 */
export function createLlmBrain(options: LlmBrainOptions): Brain {
  const ask = <T>(
    schema: z.ZodType<T>,
    schemaName: string,
    prompt: string,
    call?: BrainCallOptions,
  ) =>
    generateStructured({
      model: options.model,
      schema,
      schemaName,
      system,
      prompt,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
      ...(call?.signal ? { signal: call.signal } : {}),
      ...(call?.onUsage ? { onUsage: call.onUsage } : {}),
    });
  return {
    name: options.name,
    decide: async (input, call) =>
      (await ask(decisionsSchema, "planner decisions", plannerPrompt(input), call)).decisions,
    planModules: async (input, call) =>
      (await ask(modulesSchema, "module plan", modulePlanPrompt(input), call)).modules,
    chooseModuleStep: async (input, call) => {
      const answer = await ask(stepSchema, "module step", moduleStepPrompt(input), call);
      if (answer.action === "build") return { action: "build" };
      return {
        action: "skip",
        reason: answer.reason,
        causedBy: answer.causedBy === "" ? null : answer.causedBy,
      };
    },
    review: async (input, call) => {
      const answer = await ask(reviewSchema, "review", reviewPrompt(input), call);
      const findings = answer.findings.map((finding): ReviewFinding => {
        const builds = input.results.filter((result) => result.module === finding.module);
        const deprecated = input.decisions.some(
          (decision) => decision.target === finding.module && decision.value === "deprecate",
        );
        // Waste is accounted from the builds themselves, not from what the model says it was.
        return { ...finding, wasted: deprecated ? builds : builds.slice(1) };
      });
      // Open disputes are facts the coordination layer reported, not the model's judgement: a
      // model that forgets one must not make the review say all is well.
      return { findings, openDisputes: openDisputesOf(input) };
    },
  };
}

/** The Planner's prompt: its slice, the modules, what is decided, and what it has settled on. */
function plannerPrompt(input: PlannerInput): string {
  return [
    `You are the Planner "${input.agentId}". Your part of the task: ${input.slice}`,
    `Existing modules: ${input.inventory.join(", ") || "(none)"}`,
    `Decisions already made: ${json(input.known)}`,
    input.intended ? `The architecture you have settled on: ${json(input.intended)}` : "",
    'Return {"decisions":[{"target":"<module>","value":"deprecate"|"keep","content":"<one sentence>"}]}.',
  ].join("\n");
}

/** The Coder's planning prompt: its slice, the modules, and what its lead expects. */
function modulePlanPrompt(input: ModulePlanInput): string {
  return [
    `You are the Coder "${input.agentId}". Your part of the task: ${input.slice}`,
    `Existing modules: ${input.inventory.join(", ") || "(none)"}`,
    input.intended ? `Your team lead expects these modules: ${input.intended.join(", ")}` : "",
    'List the modules you will build or update, in order: {"modules":["<module>"]}.',
  ].join("\n");
}

/** The Coder's prompt before one module: the decisions, disputes and claim it knows of. */
function moduleStepPrompt(input: ModuleStepInput): string {
  return [
    `You are the Coder "${input.agentId}", about to build module "${input.module}".`,
    `Decisions you know of: ${json(input.decisions)}`,
    `Open disputes: ${json(input.disputes)}`,
    input.claimedBy ? `Already claimed by: ${input.claimedBy}` : "Nobody else has claimed it.",
    "Skip it if it is deprecated, disputed or claimed by someone else; otherwise build it.",
    'Return {"action":"build"|"skip","reason":"…","causedBy":"<agent id or empty>"}.',
  ].join("\n");
}

/** The Reviewer's prompt: the decisions, the builds and the open disputes. */
function reviewPrompt(input: ReviewInput): string {
  return [
    `You are the Reviewer "${input.agentId}". Decisions: ${json(input.decisions)}`,
    `Builds: ${json(input.results)}`,
    `Open disputes (reported separately, not findings unless built): ${json(input.disputes ?? [])}`,
    "Report each module that was built although it was deprecated, or built more than once.",
    'Return {"findings":[{"module":"…","agents":["…"],"description":"…"}]} (empty when all is well).',
  ].join("\n");
}
