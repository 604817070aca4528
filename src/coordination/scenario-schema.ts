import { z } from "zod";
import { authorities } from "../context/authority.js";
import { type CollisionCause, type Mechanism, mechanisms } from "./run-events.js";

const mechanismNames = mechanisms as readonly Mechanism[] as [Mechanism, ...Mechanism[]];
const collisionCauseNames = [
  ...mechanisms.filter((mechanism) => mechanism !== "bounded context"),
  "decided after the work",
] as unknown as [CollisionCause, ...CollisionCause[]];

/**
 * The scenario file format (JSON or YAML), validated with zod. A scenario is data: the task, the
 * agents, the project's existing modules, what the planners intend to decide, timings, costs and the
 * outcome each pipeline is expected to reach. The pipelines never read `expected`; only tests do.
 */

/** A module name: lower-case words joined by dashes (`legacy-session-token`). */
export const moduleNameSchema = z
  .string()
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "a module name in kebab-case, e.g. legacy-session-token");

/** What a planner can decide about a module. */
export const decisionValueSchema = z.enum(["deprecate", "keep"]);
/** `"deprecate"` (do not build it, it goes away) or `"keep"` (it stays in use). */
export type DecisionValue = z.infer<typeof decisionValueSchema>;

/** One decision a planner intends to publish. */
export const plannedDecisionSchema = z
  .object({
    /** The module the decision is about. */
    target: moduleNameSchema,
    /** Its fate: `deprecate`, `keep`, or `replace` (with `by`: the planned work moves there). */
    value: z.enum(["deprecate", "keep", "replace"]),
    /** `value: replace`: the module that replaces the target. */
    by: moduleNameSchema.optional(),
    /** The sentence published, e.g. "Deprecate legacy-session-token (replaced by JWT)". */
    content: z.string().min(1),
    /**
     * How it was established: `user` for a person's decision, which no agent's later decision
     * overrules (see src/context/authority.ts). @default agent
     */
    authority: z.enum(authorities).optional(),
  })
  .superRefine((decision, context) => {
    if ((decision.value === "replace") !== (decision.by !== undefined)) {
      context.addIssue({
        code: "custom",
        path: ["by"],
        message:
          decision.value === "replace"
            ? "the replacing module (value: replace needs by: <module>)"
            : "no by: (only value: replace names a replacing module)",
      });
    }
  });
/** A decision a planner intends to publish: the module, its fate and the sentence announcing it. */
export type PlannedDecision = z.infer<typeof plannedDecisionSchema>;

/**
 * One agent of the team: its id, role and display, its slice of the task, when it starts, and
 * (optionally) what it will decide (planners) or build (coders) instead of deriving it.
 */
export const agentSpecSchema = z.object({
  /** Unique in the scenario, kebab-case (`coder-1`): the `source` of everything it writes. */
  id: z.string().regex(/^[a-z][a-z0-9-]*$/, "an agent id in kebab-case, e.g. coder-1"),
  /** What its loop does: planners decide, coders build, reviewers review at the end. */
  role: z.enum(["planner", "coder", "reviewer"]),
  /** Display name, e.g. "Planner". */
  name: z.string().min(1),
  /** A colour Ink understands ("cyan", "#ff8800"). */
  color: z.string().min(1),
  /** This agent's part of the task. @default the decomposer's slice for its role */
  slice: z.string().min(1).optional(),
  /** When the agent starts, in scenario milliseconds. @default 0 */
  startAtMs: z.number().int().nonnegative().default(0),
  /** Overrides `timings.thinkMs` for this agent. */
  thinkMs: z.number().int().positive().optional(),
  /** Coders: the modules it plans to build, in order. @default derived from its slice and the inventory */
  modules: z.array(moduleNameSchema).optional(),
  /** Planners: what it will decide. @default derived from its slice */
  decisions: z.array(plannedDecisionSchema).optional(),
});
/** One agent of a validated scenario, defaults applied. */
export type AgentSpec = z.infer<typeof agentSpecSchema>;

/** How long each step takes, in scenario milliseconds (`--speed` divides them). */
export const timingsSchema = z.object({
  /** One thinking step (reading, planning, deciding). */
  thinkMs: z.number().int().positive(),
  /** Building one module. */
  moduleMs: z.number().int().positive(),
  /** The Reviewer's final review. */
  reviewMs: z.number().int().positive(),
  /** Random extra time per step, 0..jitterMs, fixed by `--seed`. @default 0 */
  jitterMs: z.number().int().nonnegative().default(0),
  /** Per-module overrides of `moduleMs`. @default {} */
  moduleMsByName: z.record(z.string(), z.number().int().positive()).default({}),
});
/** A scenario's timings, defaults applied. */
export type Timings = z.infer<typeof timingsSchema>;

/** What each step costs in tokens, for the summary's totals and waste. */
export const costsSchema = z.object({
  /** One thinking step of any agent. */
  tokensPerThink: z.number().int().nonnegative(),
  /** Spent evenly over the module's build time (a cancelled build spent its share). */
  tokensPerModule: z.number().int().nonnegative(),
  /** The Reviewer's final review. */
  tokensPerReview: z.number().int().nonnegative(),
});
/** A scenario's token costs. */
export type Costs = z.infer<typeof costsSchema>;

/** What a pipeline must reach on this scenario (checked by the tests under several seeds). */
export const expectedOutcomeSchema = z.object({
  /**
   * The referee's verdict. @default `collision` when `collision` is true, else `clean`
   */
  verdict: z.enum(["clean", "collision", "unresolved"]).optional(),
  /** Whether the referee finds work that contradicts the final decisions (wasted or dropped). */
  collision: z.boolean(),
  /** How many escalations the run raises. */
  escalations: z.number().int().nonnegative(),
  /** Modules fully built in vain, sorted. */
  wastedModules: z.array(moduleNameSchema),
  /** Modules planned, kept by the final decisions, and never built, sorted. @default [] */
  droppedModules: z.array(moduleNameSchema).default([]),
  /** Modules whose build was cut short. @default [] */
  cancelledModules: z.array(moduleNameSchema).default([]),
  /** At least this many conflicts avoided. @default 0 */
  minConflictsAvoided: z.number().int().nonnegative().default(0),
  /** The mechanisms that avoided conflicts (each at least once), e.g. [mid-build invalidation]. @default [] */
  avoidedBy: z.array(z.enum(mechanismNames)).default([]),
  /** Why it collides, when it does (the mechanism the mode lacked). */
  collisionCause: z.enum(collisionCauseNames).optional(),
});
/** The outcome one pipeline must reach on a scenario, defaults applied. */
export type ExpectedOutcome = z.infer<typeof expectedOutcomeSchema>;

/**
 * A step the scenario plays on an agent: `restart` crashes it at `atMs` (scenario ms) and starts it
 * again at once. Everything it held in memory is dropped (what it had read, its plan, a build in
 * flight); it catches up by reading as a joiner would, through whatever its mode offers.
 * `restart: coordinator` restarts the coordination itself instead (group chat's room, transcript
 * and claims; the store's process for shared context): each mode loses what it did not persist.
 */
export const scenarioStepSchema = z.object({
  /** When it happens, in scenario milliseconds. */
  atMs: z.number().int().positive(),
  /** The Coder that crashes and restarts, or `coordinator` (see {@link coordinatorStep}). */
  restart: z.string().min(1),
});
/** The `restart` of a step that restarts the coordination, not an agent. */
export const coordinatorStep = "coordinator";

/** One scenario step. */
export type ScenarioStep = z.infer<typeof scenarioStepSchema>;

/**
 * A whole scenario file: the task, the team, the project's existing modules, timings, costs and
 * the expected outcome per mode. Besides the shapes, it checks that agent ids are unique and that
 * the team has at least one planner, one coder and one reviewer.
 */
export const scenarioSchema = z
  .object({
    /** Short id used on the command line (`--scenario auth-jwt`). */
    name: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "a scenario name in kebab-case"),
    /** Shown by `shared-ctx demo`'s picker. */
    title: z.string().min(1),
    /** The whole task; the decomposer slices it per role. */
    task: z.string().min(1),
    /** The team, in display order; the first planner is the lead (it settles escalations). */
    agents: z.array(agentSpecSchema).min(1),
    /**
     * The planner who settles escalated claims and Planner-versus-Planner disputes; `null`: nobody
     * does (a dispute then stays open). @default the first planner
     */
    lead: z.string().nullable().optional(),
    /** The project's existing modules. @default [] */
    inventory: z.array(moduleNameSchema).default([]),
    /**
     * Module -> the modules it depends on: a decision that retires a module reaches the work on
     * its dependents (the referee counts that work as wasted, the pipelines stop it). @default {}
     */
    dependsOn: z.record(moduleNameSchema, z.array(moduleNameSchema)).default({}),
    /** Things that happen to agents during the run (a crash and restart). @default [] */
    steps: z.array(scenarioStepSchema).default([]),
    timings: timingsSchema,
    costs: costsSchema,
    /**
     * The token budget of each shared-context read (`beforeActing`'s `maxTokens`): what a
     * shared-context agent reads stays within it however large the team. @default 1000
     */
    contextBudgetTokens: z.number().int().positive().default(1000),
    /** What each mode must reach; read by the tests only, never by the pipelines. */
    expected: z
      .object({
        naive: expectedOutcomeSchema,
        broadcast: expectedOutcomeSchema,
        "group-chat": expectedOutcomeSchema.optional(),
        statewave: expectedOutcomeSchema,
      })
      .optional(),
  })
  .superRefine((scenario, context) => {
    const ids = new Set<string>();
    scenario.agents.forEach((agent, index) => {
      if (ids.has(agent.id)) {
        context.addIssue({
          code: "custom",
          path: ["agents", index, "id"],
          message: `a unique agent id ("${agent.id}" is used twice)`,
        });
      }
      ids.add(agent.id);
    });
    if (
      typeof scenario.lead === "string" &&
      !scenario.agents.some((agent) => agent.id === scenario.lead && agent.role === "planner")
    ) {
      context.addIssue({
        code: "custom",
        path: ["lead"],
        message: `the id of a planner of the team ("${scenario.lead}" is not one)`,
      });
    }
    scenario.steps.forEach((step, index) => {
      if (step.restart === coordinatorStep) return;
      const agent = scenario.agents.find((candidate) => candidate.id === step.restart);
      if (agent?.role !== "coder") {
        context.addIssue({
          code: "custom",
          path: ["steps", index, "restart"],
          message: `the id of a coder of the team ("${step.restart}" is not one)`,
        });
      } else if (step.atMs <= agent.startAtMs) {
        context.addIssue({
          code: "custom",
          path: ["steps", index, "atMs"],
          message: `a time after the agent starts (${agent.id} starts at ${agent.startAtMs})`,
        });
      }
    });
    for (const role of ["planner", "coder", "reviewer"] as const) {
      if (!scenario.agents.some((agent) => agent.role === role)) {
        context.addIssue({
          code: "custom",
          path: ["agents"],
          message: `at least one agent with role "${role}"`,
        });
      }
    }
  });

/** A validated scenario, defaults applied. */
export type Scenario = z.infer<typeof scenarioSchema>;
/** A scenario as written in a file, before defaults. */
export type ScenarioInput = z.input<typeof scenarioSchema>;
