import type { RunMode } from "../../scenario/scenario-events.js";

/** The title of each pipeline's pane, the same in the live view and the plain output. */
export const paneTitles: Record<RunMode, string> = {
  naive: "Naive (message passing)",
  statewave: "Shared context (Statewave)",
};
