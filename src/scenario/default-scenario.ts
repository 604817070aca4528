/**
 * The scenario `shared-ctx run` uses when none is named. In a module of its own so that the CLI's
 * help text can name it without loading the scenario loader (YAML and zod) at start-up.
 */
export const defaultScenarioName = "auth-jwt";

/**
 * The scenario `shared-ctx demo` opens on, by baseline: one where the outcome differs, by a
 * named mechanism. Against `group-chat` (the default, the strongest message passing) the
 * coordination restarts before a Coder joins: group-chat's room keeps its transcript in memory and
 * loses it, so the joiner never hears of a retirement; the store's log is durable (history for a
 * late joiner). Without the restart the two tie (late-joiner), and group-chat delivers fewer
 * tokens: the demo's ending says both. Against `broadcast` (plain message passing) a decision
 * landing mid-build shows what group-chat's interrupt is worth. Against `naive` it is the classic
 * comparison.
 */
export const defaultDemoScenario = {
  "group-chat": "coordinator-restart",
  broadcast: "late-decision",
  naive: defaultScenarioName,
} as const;

/**
 * Why `run` and `demo` open on different scenarios, in the words both helps use: `run` alone
 * compares against nothing, and on auth-jwt (a decision made before the build) every mode but
 * naive avoids the collision; the demo opens where its two panes' outcomes differ.
 */
export const defaultScenarioReasons = {
  run: `${defaultScenarioName}: a decision made before the build, which every mode but naive heeds`,
  demo: `${defaultDemoScenario["group-chat"]}: the coordination restarts before a late joiner, group-chat's in-memory room loses what the store's log keeps (otherwise the two tie); with --baseline broadcast, ${defaultDemoScenario.broadcast}`,
} as const;
