import { Command } from "commander";
import type { ContextStore, Episode } from "../../context/context-store.js";
import { messageOf } from "../../errors.js";
import type { RunTimeline, TimelineFilter } from "../../ui/format/run-timeline.js";
import type { TimelineClock } from "../../ui/format/timeline-table.js";
import type { CliDeps } from "../cli-deps.js";
import {
  addStoreOptions,
  drawsLive,
  isTerminal,
  type StoreFlags,
  withSelectedStore,
} from "../command-helpers.js";
import { UsageError } from "../fatal-error.js";
import { serialRefresh } from "../serial-refresh.js";

interface TimelineCommandOptions extends StoreFlags {
  json?: boolean;
  agent?: string;
  type?: string;
  follow?: boolean;
  raw?: boolean;
  utc?: boolean;
  subject?: string;
  plain?: boolean;
  color: boolean;
}

/** Pipes get a wide table (nothing re-wraps it); terminals get their own width. */
const pipeWidth = 120;

/** Any period works: the interval only holds a ref on the event loop, it never does anything. */
const keepAliveMs = 60_000;

/** The `--json` document. */
function timelineDocument(timeline: RunTimeline) {
  return {
    runId: timeline.runId,
    mode: timeline.mode ?? null,
    scenario: timeline.scenario ?? null,
    brain: timeline.brain ?? null,
    startedAt: timeline.startedAt ?? null,
    summary: timeline.summary ?? null,
    rows: timeline.rows,
    memories: { active: timeline.activeMemories, superseded: timeline.supersededMemories },
    escalations: timeline.escalations,
    reads: timeline.reads,
    events: timeline.events,
  };
}

/**
 * Prints rows as the run writes them (`--follow`) until its run-end arrives or the command is
 * interrupted, then the sections after the table.
 */
async function follow(
  deps: CliDeps,
  store: ContextStore,
  runId: string,
  filter: TimelineFilter,
  width: number,
  clock: TimelineClock,
): Promise<void> {
  const [
    { fromRunEventEpisode },
    { readFullTimeline },
    { buildRunTimeline },
    { followColumns, formatTimelineHeader, formatTimelineRows, formatTimelineSections },
  ] = await Promise.all([
    import("../../scenario/run-record.js"),
    import("../../ui/data/read-run.js"),
    import("../../ui/format/run-timeline.js"),
    import("../../ui/format/timeline-table.js"),
  ]);
  const columns = followColumns(width, clock);
  const episodes: Episode[] = [];
  const printed = new Set<string>();
  deps.stdout.write(`Following ${runId} (Ctrl-C to stop)\n\n`);
  deps.stdout.write(`${formatTimelineHeader(columns, width).join("\n")}\n`);
  await new Promise<void>((resolve) => {
    // The store's watch timers are unref()'d so that a forgotten watch never holds a process open;
    // here following IS the work, so this ref'd timer keeps Node alive until run-end, Ctrl-C or
    // abort (otherwise Node exits with 13, "unsettled top-level await", as soon as it idles).
    const keepAlive = setInterval(() => undefined, keepAliveMs);
    const onAbort = () => finish();
    const subscription = store.watch(
      runId,
      (change) => {
        if (change.type !== "episode") return;
        episodes.push(change.episode);
        // Rebuilt each time so agent names from run-start apply to every row.
        const timeline = buildRunTimeline(runId, { episodes, memories: [] }, filter);
        const fresh = timeline.rows.filter((row) => !printed.has(row.episodeId));
        for (const row of fresh) printed.add(row.episodeId);
        if (fresh.length > 0)
          deps.stdout.write(`${formatTimelineRows(fresh, columns).join("\n")}\n`);
        if (fromRunEventEpisode(change.episode)?.type === "run-end") finish();
      },
      {
        replay: true,
        onError: (error) => {
          deps.stderr.write(`shared-ctx: still trying to follow ${runId}: ${messageOf(error)}\n`);
        },
      },
    );
    let finished = false;
    function finish() {
      if (finished) return;
      finished = true;
      clearInterval(keepAlive);
      deps.signal.removeEventListener("abort", onAbort);
      subscription.close();
      resolve();
    }
    if (deps.signal.aborted) finish();
    else deps.signal.addEventListener("abort", onAbort, { once: true });
  });
  const full = buildRunTimeline(runId, await readFullTimeline(store, runId), filter);
  deps.stdout.write(`${formatTimelineSections(full, width).join("\n")}\n`);
}

/** `timeline --subject`: any subject's history, then what `watch` would show of it now. */
async function printSubject(
  deps: CliDeps,
  store: ContextStore,
  subjectId: string,
  view: TimelineView,
  json: boolean | undefined,
): Promise<void> {
  if (json) {
    await printSubjectJson(deps, store, subjectId, view.filter);
    return;
  }
  const [{ forEachTimelinePage }, { TimelineRowPager }, table, { SubjectDigest }, subjectView] =
    await Promise.all([
      import("../../ui/data/read-run.js"),
      import("../../ui/format/timeline-pages.js"),
      import("../../ui/format/timeline-table.js"),
      import("../../ui/format/subject-digest.js"),
      import("../../ui/format/subject-view.js"),
    ]);
  const { width, filter } = view;
  const paging = { signal: deps.signal };
  // Read twice, one page at a time, so the subject is never held whole: first the columns' widths
  // (and the view), then the rows, laid out as the whole table would lay them out.
  const sizing = new TimelineRowPager(subjectId, filter);
  const digest = new SubjectDigest(subjectId);
  type Columns = import("../../ui/format/timeline-table.js").TimelineColumns;
  // Sized on both clocks: which one applies is known once a run-start was seen or not.
  const sized: { scenario?: Columns; utc?: Columns } = {};
  let rows = 0;
  await forEachTimelinePage(
    store,
    subjectId,
    (page) => {
      for (const episode of page.episodes) digest.addEpisode(episode);
      for (const memory of page.memories) digest.addMemory(memory);
      const pageRows = sizing.rowsOf(page.episodes);
      rows += pageRows.length;
      for (const clock of ["scenario", "utc"] as const) {
        const widths = table.timelineColumns(pageRows, width, clock);
        const before = sized[clock];
        sized[clock] = before ? table.widerTimelineColumns(before, widths, width) : widths;
      }
    },
    paging,
  );
  // A subject that is not a run has no run clock: its rows are on the wall clock.
  const laidOut = sized[sizing.sawRunStart ? view.clock : "utc"];
  if (digest.episodes === 0 || laidOut === undefined) {
    throw new UsageError(`no subject "${subjectId}" in this store (nothing was written to it)`);
  }
  deps.stdout.write(`${table.formatTimelineHeader(laidOut, width).join("\n")}\n`);
  if (rows === 0) deps.stdout.write("(no events match)\n");
  const printing = new TimelineRowPager(subjectId, filter);
  await forEachTimelinePage(
    store,
    subjectId,
    (page) => {
      const pageRows = printing.rowsOf(page.episodes);
      if (pageRows.length > 0) {
        deps.stdout.write(`${table.formatTimelineRows(pageRows, laidOut).join("\n")}\n`);
      }
    },
    paging,
  );
  const shown = subjectView.viewOfDigest(digest);
  deps.stdout.write(`${["", ...subjectView.formatSubjectView(shown)].join("\n")}\n`);
}

/** `timeline --subject --json`: one document, so the subject is read whole. */
async function printSubjectJson(
  deps: CliDeps,
  store: ContextStore,
  subjectId: string,
  filter: TimelineFilter,
): Promise<void> {
  const [{ readFullTimeline }, { buildRunTimeline }, subjectView] = await Promise.all([
    import("../../ui/data/read-run.js"),
    import("../../ui/format/run-timeline.js"),
    import("../../ui/format/subject-view.js"),
  ]);
  const timeline = await readFullTimeline(store, subjectId, { signal: deps.signal });
  if (timeline.episodes.length === 0) {
    throw new UsageError(`no subject "${subjectId}" in this store (nothing was written to it)`);
  }
  const built = buildRunTimeline(subjectId, timeline, filter);
  const view = subjectView.buildSubjectView(timeline);
  deps.stdout.write(`${JSON.stringify({ ...timelineDocument(built), view }, null, 2)}\n`);
}

/**
 * Refuses an `--agent` or `--type` the run does not have, listing what it has (exit 2): a typo
 * must not look like a run in which nothing happened.
 */
function validateFilter(
  runId: string,
  filter: TimelineFilter,
  choices: { agents: readonly string[]; agentKeys: ReadonlySet<string>; types: readonly string[] },
): void {
  if (filter.agent !== undefined && !choices.agentKeys.has(filter.agent.toLowerCase())) {
    throw new UsageError(
      `run ${runId} has no agent "${filter.agent}". Its agents: ${choices.agents.join(", ")}`,
    );
  }
  const types = choices.types.map((type) => type.toLowerCase());
  if (filter.type !== undefined && !types.includes(filter.type.toLowerCase())) {
    throw new UsageError(
      `run ${runId} has no "${filter.type}" rows. Its types: ${choices.types.join(", ")}`,
    );
  }
}

/** `shared-ctx timeline <run-id>`: who knew what, when. */
export function makeTimelineCommand(deps: CliDeps): Command {
  const command = new Command("timeline")
    .description("the audit trail of a run: every event, the final memory state, who read what")
    .argument(
      "[run-id]",
      "a run id (sw-1a2b3c4d), a unique prefix of one (sw-1a, 1a2b), or `last`; `shared-ctx runs` lists them",
    )
    .option("--json", "print one JSON document instead of the table")
    .option("--agent <name>", "only rows of this agent (id or name)")
    .option(
      "--type <type>",
      "only rows of this event or episode type (e.g. module-skip, state_update)",
    )
    .option("--follow", "keep printing new rows of a run in progress (until it ends or Ctrl-C)")
    .option(
      "--subject <id>",
      "any subject's history instead of a run's (what `shared-ctx watch` shows live)",
    )
    .option("--raw", "show the machinery too: CRDT updates, claim encodings as stored")
    .option("--utc", "times as wall-clock UTC instead of the run's own clock since its start")
    .option("--plain", "print the table even in a terminal (no interactive view)")
    .option("--no-color", "draw without colour (NO_COLOR is honoured too)");
  return addStoreOptions(command, "the run")
    .addHelpText("after", timelineHelpText)
    .action((runIdInput: string | undefined, options: TimelineCommandOptions) =>
      timeline(runIdInput, options, deps),
    );
}

/** The help after the options: the interactive view's keys and examples. */
const timelineHelpText = [
  "",
  "In a terminal: ↑↓ PgUp PgDn g G scroll · / search · a cycle agents · f follow · q quit.",
  "",
  "Examples:",
  "  $ shared-ctx timeline last",
  "  $ shared-ctx timeline sw-1a2b --agent coder --type module-skip",
  "  $ shared-ctx timeline sw-1a2b3c4d --raw --utc",
  "  $ shared-ctx timeline sw-1a2b3c4d --json | jq .reads",
  "  $ shared-ctx timeline sw-1a2b3c4d --follow      (while `shared-ctx run` runs elsewhere)",
].join("\n");

/** Exactly one of a run id and `--subject` names what to show. */
function checkTarget(runIdInput: string | undefined, subject: string | undefined): void {
  if (runIdInput === undefined && subject === undefined) {
    throw new UsageError(
      "timeline needs a run id, `last`, or --subject <id> (`shared-ctx runs` lists the runs)",
    );
  }
  if (runIdInput !== undefined && subject !== undefined) {
    throw new UsageError(
      `timeline takes a run id or --subject, not both (drop "${runIdInput}" or --subject ${subject})`,
    );
  }
}

/** How the rows are drawn: which rows, on which clock, how wide. */
interface TimelineView {
  filter: TimelineFilter;
  clock: TimelineClock;
  width: number;
}

/** `timeline`'s action: a subject's history, or a run's, in the form the options and terminal ask. */
async function timeline(
  runIdInput: string | undefined,
  options: TimelineCommandOptions,
  deps: CliDeps,
): Promise<void> {
  checkTarget(runIdInput, options.subject);
  const view: TimelineView = {
    filter: { agent: options.agent, type: options.type, raw: options.raw === true },
    clock: options.utc ? "utc" : "scenario",
    width: deps.stdout.isTTY && deps.stdout.columns ? deps.stdout.columns : pipeWidth,
  };
  // The store's driver and the Unicode width tables (string-width) load only now: they are for
  // this command's action, not for `--help` or the other commands.
  await withSelectedStore(options, deps, { mustExist: true }, async (store, storeName) => {
    if (options.subject !== undefined) {
      await printSubject(deps, store, options.subject, view, options.json);
      return;
    }
    await showRun(deps, store, { input: runIdInput ?? "", storeName }, view, options);
  });
}

/** A run's timeline: followed, as JSON, in the interactive inspector, or as a printed report. */
async function showRun(
  deps: CliDeps,
  store: ContextStore,
  run: { input: string; storeName: string },
  view: TimelineView,
  options: TimelineCommandOptions,
): Promise<void> {
  const [
    { readRunTimeline, resolveRunId },
    { buildRunTimeline, timelineChoices },
    { formatTimelineReport },
  ] = await Promise.all([
    import("../../ui/data/find-run.js"),
    import("../../ui/format/run-timeline.js"),
    import("../../ui/format/timeline-table.js"),
  ]);
  const { filter, clock, width } = view;
  const found = { signal: deps.signal, storeName: run.storeName };
  const runId = await resolveRunId(store, run.input, found);
  const timeline = await readRunTimeline(store, runId, found);
  validateFilter(runId, filter, timelineChoices(timeline));
  const interactive =
    drawsLive(deps) && deps.stdin?.isTTY === true && !options.plain && !options.json;
  if (options.follow && !options.json && !interactive) {
    await follow(deps, store, runId, filter, width, clock);
    return;
  }
  const built = buildRunTimeline(runId, timeline, filter);
  if (options.json) {
    deps.stdout.write(`${JSON.stringify(timelineDocument(built), null, 2)}\n`);
    return;
  }
  if (interactive && isTerminal(deps.stdout)) {
    await inspect(deps, deps.stdout, store, built, view, options);
    return;
  }
  deps.stdout.write(`${formatTimelineReport(built, width, clock).join("\n")}\n`);
}

/** The interactive inspector over a run, re-read whenever the run gets a new episode. */
async function inspect(
  deps: CliDeps,
  stdout: NodeJS.WriteStream,
  store: ContextStore,
  built: RunTimeline,
  view: TimelineView,
  options: TimelineCommandOptions,
): Promise<void> {
  const [
    { renderTimelineInspector },
    { isColorDisabled },
    { readFullTimeline },
    { buildRunTimeline },
  ] = await Promise.all([
    import("../../ui/render-timeline.js"),
    import("../../ui/theme/tokens.js"),
    import("../../ui/data/read-run.js"),
    import("../../ui/format/run-timeline.js"),
  ]);
  const { runId } = built;
  await renderTimelineInspector({
    stdout,
    ...(deps.stdin ? { stdin: deps.stdin } : {}),
    timeline: built,
    clock: view.clock,
    follow: options.follow === true,
    noColor: isColorDisabled(deps.env, !options.color),
    signal: deps.signal,
    watch: (onChange) => {
      // Re-read the whole run on new episodes: cheap next to a person reading it. `replay`:
      // an episode written between the first read and the feed's first poll is in the
      // feed's history, not its news; without it, it stayed off screen until the next one.
      const refresher = serialRefresh(
        async () => buildRunTimeline(runId, await readFullTimeline(store, runId), view.filter),
        onChange,
      );
      const subscription = store.watch(
        runId,
        (change) => {
          if (change.type === "episode") refresher.refresh();
        },
        { replay: true },
      );
      return () => {
        refresher.close();
        subscription.close();
      };
    },
  });
}
