import { type RunMode, runModes } from "../coordination/run-events.js";

/**
 * The help text several commands share, written once: the coordination modes (`run --mode`, the
 * root help's "Start here") and the root help's first steps. A command added to the CLI that a
 * newcomer should meet first adds its line to {@link startHere}; nothing else changes.
 */

/** What each coordination mode is, in one phrase. */
export const modeSummaries: Record<RunMode, string> = {
  naive: "isolated agents: each sees only its own brief",
  broadcast: "plain message passing: every message to every agent, nothing more",
  "group-chat": "the strongest message passing: interrupts, transcript, claims, filtered reading",
  statewave: "the shared context: read before acting, decisions, claims, invalidation",
};

/** `naive (…); broadcast (…)`: every mode with its phrase, for `--mode`'s description. */
export function describeModes(): string {
  return runModes.map((mode) => `${mode} (${modeSummaries[mode]})`).join("; ");
}

/** One first step: the command line and what it shows; `detail` lines go under it, indented. */
export interface StartHereLine {
  readonly command: string;
  readonly what: string;
  readonly detail?: readonly (readonly [name: string, what: string])[];
}

/** The root help's "Start here", in order. */
export const startHere: StartHereLine[] = [
  {
    command: "shared-ctx demo",
    what: "group chat vs shared context, side by side (--baseline broadcast|naive)",
  },
  {
    command: "shared-ctx run --mode <mode>",
    what: "one mode, with a summary; the modes:",
    detail: runModes.map((mode) => [mode, modeSummaries[mode]] as const),
  },
  { command: "shared-ctx timeline last", what: "who knew what, when (the newest run)" },
  { command: "shared-ctx watch <subject>", what: "a subject live: who works on what, decisions" },
  { command: "shared-ctx mcp --subject my-repo", what: "shared context for a coding agent" },
];

/** The "Start here" section as help lines, commands and names in aligned columns. */
export function formatStartHere(lines: readonly StartHereLine[] = startHere): string[] {
  const commandWidth = Math.max(...lines.map((line) => line.command.length)) + 2;
  const out = ["Start here:"];
  for (const line of lines) {
    out.push(`  $ ${line.command.padEnd(commandWidth)}${line.what}`);
    const detail = line.detail ?? [];
    const nameWidth = Math.max(0, ...detail.map(([name]) => name.length)) + 2;
    for (const [name, what] of detail) out.push(`      ${name.padEnd(nameWidth)}${what}`);
  }
  return out;
}
