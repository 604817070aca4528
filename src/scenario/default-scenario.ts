/**
 * The scenario `shared-ctx run` uses when none is named. In a module of its own so that the CLI's
 * help text can name it without loading the scenario loader (YAML and zod) at start-up.
 */
export const defaultScenarioName = "auth-jwt";

/**
 * The scenario `shared-ctx demo` opens on, by baseline. Against `broadcast` (the default, the
 * strongest message passing) it is one where shared context wins for a reason messages cannot
 * match: a decision that lands mid-build. Against `naive` it is the classic comparison.
 */
export const defaultDemoScenario = {
  broadcast: "late-decision",
  naive: defaultScenarioName,
} as const;
