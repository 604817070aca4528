/**
 * The scenario `shared-ctx run` uses when none is named. In a module of its own so that the CLI's
 * help text can name it without loading the scenario loader (YAML and zod) at start-up.
 */
export const defaultScenarioName = "auth-jwt";

/**
 * The scenario `shared-ctx demo` opens on, by baseline. Against `group-chat` (the default, the
 * strongest message passing) it is a decision that lands mid-build: group-chat's bus listener
 * interrupts the build as the shared context's invalidation does, and the demo shows the tie.
 * Against `broadcast` (plain message passing) the same scenario shows what the interrupt is
 * worth. Against `naive` it is the classic comparison.
 */
export const defaultDemoScenario = {
  "group-chat": "late-decision",
  broadcast: "late-decision",
  naive: defaultScenarioName,
} as const;
