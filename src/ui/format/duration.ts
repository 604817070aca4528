/** Time and quantity formats shared by the Ink views and the plain output. */

/** A duration: "0.4s", "12.0s", "4m0s", "1h2m3s". */
export function formatDuration(ms: number): string {
  const safe = Math.max(0, ms);
  if (safe < 60_000) return `${(safe / 1000).toFixed(1)}s`;
  const totalSeconds = Math.floor(safe / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  return hours > 0 ? `${hours}h${minutes}m${seconds}s` : `${minutes}m${seconds}s`;
}

/**
 * Time since the run started, as the timeline shows it: "T+0.0s", "T+4m0s"; "T-1.2s" before it
 * (what was set up before run-start). Less than 0.05 s before the start still reads "T+0.0s".
 */
export function formatRelative(ms: number): string {
  const before = formatDuration(-ms);
  return ms < 0 && before !== formatDuration(0) ? `T-${before}` : `T+${formatDuration(ms)}`;
}

/** A token count with thousands separators: "12,400". */
export function formatTokens(tokens: number): string {
  return Math.round(tokens).toLocaleString("en-US");
}

/** The time of day of an ISO timestamp, in UTC, to the millisecond: "14:03:07.250". */
export function formatUtcTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toISOString().slice(11, 23);
}

/** Date and time of an ISO timestamp in UTC, to the second: "2025-06-01 14:03:07Z". */
export function formatUtcDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 19)}Z`;
}

/** "1 module", "2 modules". */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : pluralNoun}`;
}
