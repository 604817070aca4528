/**
 * The scenario `shared-ctx run` uses when none is named. In a module of its own so that the CLI's
 * help text can name it without loading the scenario loader (YAML and zod) at start-up.
 */
export const defaultScenarioName = "auth-jwt";
