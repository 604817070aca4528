import { type Authority, authorityOf, defaultAuthority } from "../../context/authority.js";
import { contradictsKey, nonMemoryEpisodeTypes } from "../../context/compile-memories.js";
import type { Episode, Memory, Timeline } from "../../context/context-store.js";
import { fromRunEventEpisode } from "../../scenario/run-record.js";
import type { RunSummary, ScenarioEvent } from "../../scenario/scenario-events.js";
import { type AgentDirectory, agentDirectoryOf } from "./agent-directory.js";
import { formatRelative, formatUtcTime } from "./duration.js";
import { summariseEpisode } from "./episode-summary.js";
import { describeEvent } from "./event-line.js";
import { humanizeEncodings } from "./humanize-encodings.js";
import { describeEscalations } from "./verdict.js";

/** One row of the timeline table. */
export interface TimelineRow {
  readonly episodeId: string;
  /** ISO-8601 UTC, as stored. */
  readonly createdAt: string;
  /** "14:03:07.250" (UTC). */
  readonly time: string;
  /**
   * "T+0.4s": wall-clock time since the run-start episode was recorded, the same clock as `time`,
   * so every row (run events and coordination episodes alike) is on one time line.
   */
  readonly relative: string;
  /**
   * "T+4.0s": the run's own (scenario) clock, `event.at` since run-start, which `--speed` scales
   * and in which the run's durations are counted; null for coordination episodes, which have none.
   */
  readonly scenarioRelative: string | null;
  /**
   * The table's one clock: the scenario clock; a coordination episode takes the time of the run
   * event written just before it (it was written at that point of the run).
   */
  readonly at: string;
  /** Internal machinery (CRDT updates, snapshots): hidden unless `--raw`. */
  readonly machinery: boolean;
  readonly agentId: string | null;
  readonly agent: string;
  /** The scenario event type (`decision-write`) or the episode type (`state_update`). */
  readonly type: string;
  readonly content: string;
}

/** A memory as the final-state section shows it. */
export interface MemoryRow {
  readonly id: string;
  readonly kind: string;
  readonly confidence: number;
  readonly status: Memory["status"];
  readonly content: string;
  readonly validFrom: string;
  readonly validTo: string | null;
  /** How it was established, when not the default (`agent`). */
  readonly authority?: Authority;
  /** While it is active: the other sides of the dispute it raised, "author (authority)". */
  readonly disputes?: readonly string[];
}

/** What one agent received when it read the shared context. */
export interface ReadRow {
  /** Wall-clock time since run-start, as in the table ({@link TimelineRow.relative}). */
  readonly relative: string;
  /** The run's own clock ({@link TimelineRow.scenarioRelative}). */
  readonly scenarioRelative: string;
  readonly agent: string;
  readonly task: string;
  readonly memoryCount: number;
  readonly decisions: readonly string[];
  readonly disputes: readonly string[];
}

/** Everything `shared-ctx timeline` shows about a run, built from the store's timeline. */
export interface RunTimeline {
  readonly runId: string;
  readonly mode?: string;
  readonly scenario?: string;
  readonly brain?: string;
  readonly startedAt?: string;
  /** The run's events, in order. */
  readonly events: readonly ScenarioEvent[];
  readonly rows: readonly TimelineRow[];
  readonly activeMemories: readonly MemoryRow[];
  readonly supersededMemories: readonly MemoryRow[];
  readonly escalations: readonly string[];
  readonly reads: readonly ReadRow[];
  /** Present once the run has ended. */
  readonly summary?: RunSummary;
}

/** Filters for the table rows (the other sections are never filtered). */
export interface TimelineFilter {
  /** Keep machinery rows (CRDT updates, raw claim encodings). @default false */
  readonly raw?: boolean;
  /** An agent id or display name, case-insensitive. */
  readonly agent?: string;
  /** An event type (`module-skip`) or episode type (`state_update`), case-insensitive. */
  readonly type?: string;
}

function toMemoryRow(memory: Memory, all: ReadonlyMap<string, Memory>): MemoryRow {
  const authority = authorityOf(memory.metadata);
  const contradicted = memory.metadata[contradictsKey];
  // Each other side of a dispute this memory is in, with its author and authority.
  const disputes = (Array.isArray(contradicted) ? contradicted : []).flatMap((id) => {
    const other = typeof id === "string" ? all.get(id) : undefined;
    if (other === undefined || other.status !== "active" || memory.status !== "active") return [];
    const source = other.metadata.source;
    const otherAuthority = authorityOf(other.metadata);
    return [
      `${typeof source === "string" ? source : "unknown"}${otherAuthority === defaultAuthority ? "" : ` (${otherAuthority})`}`,
    ];
  });
  return {
    id: memory.id,
    kind: memory.kind,
    confidence: memory.confidence,
    status: memory.status,
    content: memory.content,
    validFrom: memory.validFrom,
    validTo: memory.validTo,
    ...(authority === defaultAuthority ? {} : { authority }),
    ...(disputes.length > 0 ? { disputes } : {}),
  };
}

/** Milliseconds of an ISO timestamp, or undefined when it does not parse. */
function epochMs(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The two clocks a row is placed on: wall (createdAt) and scenario (`event.at`). */
interface Origins {
  /** The run-start episode's createdAt (epoch ms), or the first episode's. */
  readonly wall: number | undefined;
  /** run-start's `at` (scenario ms). */
  readonly scenario: number;
}

function wallRelative(episode: Episode, origins: Origins): string {
  const at = epochMs(episode.createdAt);
  return at === undefined || origins.wall === undefined ? "" : formatRelative(at - origins.wall);
}

function rowFor(
  episode: Episode,
  event: ScenarioEvent | undefined,
  agents: AgentDirectory,
  origins: Origins,
  lastScenarioMs: number,
  raw: boolean,
): TimelineRow {
  const common = {
    episodeId: episode.id,
    createdAt: episode.createdAt,
    time: formatUtcTime(episode.createdAt),
    relative: wallRelative(episode, origins),
  };
  const meaning = (text: string) => (raw ? text : humanizeEncodings(text, agents));
  if (event) {
    const line = describeEvent(event, agents);
    const scenarioRelative = formatRelative(event.at - origins.scenario);
    return {
      ...common,
      scenarioRelative,
      at: scenarioRelative,
      machinery: false,
      agentId: line.agentId,
      agent: line.label,
      type: event.type,
      content: meaning(line.text),
    };
  }
  return {
    ...common,
    scenarioRelative: null,
    at: formatRelative(Math.max(0, lastScenarioMs)),
    machinery: nonMemoryEpisodeTypes.has(episode.type),
    agentId: episode.source,
    agent: agents.name(episode.source),
    type: episode.type,
    content: meaning(summariseEpisode(episode)),
  };
}

/** The agents and row types a run has, for validating `--agent` and `--type`. */
export interface TimelineChoices {
  /** Display names, in run-start order, then any other source seen. */
  readonly agents: readonly string[];
  /** Every agent id and name, lower case (what `--agent` accepts). */
  readonly agentKeys: ReadonlySet<string>;
  /** Every row type, in first-seen order (machinery included). */
  readonly types: readonly string[];
}

/** What `--agent` and `--type` may name in this run. */
export function timelineChoices(timeline: Pick<Timeline, "episodes">): TimelineChoices {
  const built = buildRunTimeline("", { episodes: timeline.episodes, memories: [] }, { raw: true });
  const agents: string[] = [];
  const keys = new Set<string>();
  const types: string[] = [];
  for (const row of built.rows) {
    if (row.agentId !== null && !agents.includes(row.agent)) agents.push(row.agent);
    keys.add(row.agent.toLowerCase());
    if (row.agentId) keys.add(row.agentId.toLowerCase());
    if (!types.includes(row.type)) types.push(row.type);
  }
  return { agents, agentKeys: keys, types };
}

function matches(row: TimelineRow, filter: TimelineFilter, agents: AgentDirectory): boolean {
  if (filter.type && row.type.toLowerCase() !== filter.type.toLowerCase()) return false;
  if (filter.agent) {
    const wanted = filter.agent.toLowerCase();
    const names = [row.agent, row.agentId ?? "", row.agentId ? agents.name(row.agentId) : ""];
    if (!names.some((name) => name.toLowerCase() === wanted)) return false;
  }
  return true;
}

/** Builds the timeline view of a run from the store's episodes and memories of its subject. */
export function buildRunTimeline(
  runId: string,
  timeline: Pick<Timeline, "episodes" | "memories">,
  filter: TimelineFilter = {},
): RunTimeline {
  const events: ScenarioEvent[] = [];
  const pairs: Array<{ episode: Episode; event: ScenarioEvent | undefined }> = [];
  for (const episode of timeline.episodes) {
    const event = fromRunEventEpisode(episode);
    if (event) events.push(event);
    pairs.push({ episode, event });
  }
  const agents = agentDirectoryOf(events);
  const start = events.find((event) => event.type === "run-start");
  const end = events.find((event) => event.type === "run-end");
  const startEpisode = pairs.find((pair) => pair.event?.type === "run-start")?.episode;
  // T+0.0s is the run's start on both clocks: setting up the shared context before it (the
  // scenario's existing modules) is not the run's time and shows as T+0.0s or a little before.
  const origins: Origins = {
    wall: epochMs(startEpisode?.createdAt ?? timeline.episodes[0]?.createdAt),
    scenario: start?.at ?? 0,
  };
  const rows: TimelineRow[] = [];
  // Asking for a machinery type by name shows it, as --raw would.
  const raw =
    filter.raw === true ||
    (filter.type !== undefined && nonMemoryEpisodeTypes.has(filter.type.toLowerCase()));
  let lastScenarioMs = 0;
  for (const { episode, event } of pairs) {
    if (event) lastScenarioMs = event.at - origins.scenario;
    const row = rowFor(episode, event, agents, origins, lastScenarioMs, raw);
    if ((raw || !row.machinery) && matches(row, filter, agents)) rows.push(row);
  }
  const byId = new Map(timeline.memories.map((memory) => [memory.id, memory]));
  return {
    runId,
    mode: start?.mode,
    scenario: start?.scenario,
    brain: start?.brain,
    startedAt: startEpisode?.createdAt ?? timeline.episodes[0]?.createdAt,
    events,
    rows,
    activeMemories: timeline.memories
      .filter((m) => m.status === "active")
      .map((m) => toMemoryRow(m, byId)),
    supersededMemories: timeline.memories
      .filter((m) => m.status === "superseded")
      .map((m) => toMemoryRow(m, byId)),
    escalations: describeEscalations(events, agents).map((line) =>
      filter.raw ? line : humanizeEncodings(line, agents),
    ),
    reads: pairs.flatMap(({ episode, event }) =>
      event?.type === "context-read"
        ? [
            {
              relative: wallRelative(episode, origins),
              scenarioRelative: formatRelative(event.at - origins.scenario),
              agent: agents.name(event.agentId),
              task: event.task,
              memoryCount: event.memoryIds.length,
              decisions: event.decisions,
              disputes: event.disputes,
            },
          ]
        : [],
    ),
    summary: end?.type === "run-end" ? end.summary : undefined,
  };
}
