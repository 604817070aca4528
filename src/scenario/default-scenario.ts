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

/**
 * Why `run` and `demo` open on different scenarios, in the words both helps use: `run` alone
 * compares against nothing, and on auth-jwt (a decision made before the build) every mode but
 * naive avoids the collision; the demo's left pane is message passing, and late-decision is the
 * case that tells its modes apart.
 */
export const defaultScenarioReasons = {
  run: `${defaultScenarioName}: a decision made before the build, which every mode but naive heeds`,
  demo: `${defaultDemoScenario["group-chat"]}: a decision landing mid-build, the case that tells message passing's modes apart`,
} as const;
