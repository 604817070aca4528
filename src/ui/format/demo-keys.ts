/**
 * The demo's keys, written once: the key hints under its panes, its `?` overlay and
 * `demo --help` all read these tables (a key added here is shown and documented everywhere).
 */

/** The short hints under the panes, in the order shown. */
export const paneHints = [
  ["t", "timeline"],
  ["c", "comparison"],
  ["r", "run again"],
  ["s", "scenario"],
  ["?", "keys"],
  ["q", "quit"],
] as const;

/** Every key of the demo and what it does: the `?` overlay and `demo --help`. */
export const helpKeys = [
  ["t", "the shared-context run's timeline (↑↓ PgUp PgDn scroll, esc back)"],
  ["c", "the comparison table, full screen (once both runs have ended)"],
  ["r", "run both pipelines again"],
  ["s", "pick another scenario (↑↓ or type its name, enter runs it)"],
  ["?", "every key and what it does (this list)"],
  ["q  Ctrl-C", "quit, leaving both verdicts and the comparison on screen"],
] as const;
