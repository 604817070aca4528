import type { RunMode } from "../../scenario/scenario-events.js";

/**
 * The title of each pipeline's pane, the same in the live view and the plain output: words a
 * newcomer understands, without the project's own names for things.
 */
export const paneTitles: Record<RunMode, string> = {
  naive: "Messages only",
  broadcast: "Messages to everyone",
  "group-chat": "Group chat",
  statewave: "Shared context",
};
