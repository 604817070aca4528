/**
 * The scenario file format lives in `src/coordination/scenario-schema.ts`, where both the agents
 * (which run on it) and the scenario loader can see it; this module keeps the path others import.
 */
export * from "../coordination/scenario-schema.js";
