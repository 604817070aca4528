import { Command } from "commander";
import type { ContextStore } from "../../context/context-store.js";
import type { CliDeps } from "../cli-deps.js";
import {
  addStoreOptions,
  drawsLive,
  isTerminal,
  parseSubjectId,
  type StoreFlags,
  withSelectedStore,
} from "../command-helpers.js";

interface WatchCommandOptions extends StoreFlags {
  once?: boolean;
  json?: boolean;
  color: boolean;
}

/**
 * `shared-ctx watch <subject>`: the live view of any subject, whoever writes it (MCP agents in one
 * repository, library users, LangGraph nodes, a demo run).
 */
export function makeWatchCommand(deps: CliDeps): Command {
  const command = new Command("watch")
    .description(
      "live view of a subject: who works on what, decisions and what superseded them, open disputes, stale reads",
    )
    .argument(
      "<subject>",
      "the subject id the agents share, or a run: its id, a unique prefix of one, or `last`",
      parseSubjectId,
    )
    .option("--once", "print the view once and exit (the default without a terminal)")
    .option("--json", "print the view once as one JSON document")
    .option("--no-color", "draw without colour (NO_COLOR is honoured too)");
  return addStoreOptions(command, "the subject")
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        "  $ shared-ctx watch my-repo                  (while two `shared-ctx mcp` agents work on it)",
        "  $ shared-ctx watch my-repo --once --json | jq .disputes",
        "  $ shared-ctx timeline --subject my-repo     (the same subject's history, for scripts)",
      ].join("\n"),
    )
    .action((subjectId: string, options: WatchCommandOptions) => watch(subjectId, options, deps));
}

/** `watch`'s action: the subject read once, then printed (as lines or JSON) or followed live. */
async function watch(input: string, options: WatchCommandOptions, deps: CliDeps): Promise<void> {
  // Loaded here, not at the top: the store's driver and the UI are this command's alone.
  const [{ formatSubjectView, isEmptySubjectView }, { unknownSubjectError, resolveSubjectInput }] =
    await Promise.all([
      import("../../ui/format/subject-view.js"),
      import("../../ui/data/find-subject.js"),
    ]);
  await withSelectedStore(options, deps, { mustExist: true }, async (store, storeName) => {
    const found = { storeName, signal: deps.signal };
    const { subjectId } = await resolveSubjectInput(store, input, found);
    const initial = await readSubject(store, subjectId, deps);
    const live = !options.json && !options.once && drawsLive(deps) && deps.stdin?.isTTY === true;
    // Printed once, an empty view of a typo looks like a subject where nothing happened. Live,
    // the agents may simply not have started: the view waits and says so.
    if (!live && isEmptySubjectView(initial)) {
      throw await unknownSubjectError(store, subjectId, found);
    }
    if (options.json) {
      deps.stdout.write(`${JSON.stringify(initial, null, 2)}\n`);
      return;
    }
    if (!live || !isTerminal(deps.stdout)) {
      deps.stdout.write(`${formatSubjectView(initial).join("\n")}\n`);
      return;
    }
    await watchLive(deps, deps.stdout, store, subjectId, options);
  });
}

/**
 * What `watch` shows of a subject now: the timeline (decisions, runs) folded one page at a time
 * (never the whole subject in memory, see subject-digest.ts), the merging shared state (claims,
 * escalations) and the coding sessions' edits (the Claude Code hooks': who holds what, who was
 * refused what).
 */
async function readSubject(store: ContextStore, subjectId: string, deps: CliDeps) {
  const [
    { forEachTimelinePage },
    { readSharedState },
    { SubjectDigest },
    { viewOfDigest },
    { readSubjectEdits },
  ] = await Promise.all([
    import("../../ui/data/read-run.js"),
    import("../../ui/data/read-shared-state.js"),
    import("../../ui/format/subject-digest.js"),
    import("../../ui/format/subject-view.js"),
    import("../../hooks/edit-activity.js"),
  ]);
  const digest = new SubjectDigest(subjectId);
  const fold = forEachTimelinePage(
    store,
    subjectId,
    (page) => {
      for (const episode of page.episodes) digest.addEpisode(episode);
      for (const memory of page.memories) digest.addMemory(memory);
    },
    { signal: deps.signal },
  );
  const [, state, edits] = await Promise.all([
    fold,
    readSharedState(store, subjectId),
    readSubjectEdits(store, subjectId, { now: Date.now() }),
  ]);
  return viewOfDigest(digest, state, edits);
}

/** The live view in a terminal until the person quits, following every change to the subject. */
async function watchLive(
  deps: CliDeps,
  stdout: NodeJS.WriteStream,
  store: ContextStore,
  subjectId: string,
  options: WatchCommandOptions,
): Promise<void> {
  const [
    { renderWatch },
    { isColorDisabled },
    { followSubject },
    { readSubjectEdits, editsSubjectOf },
  ] = await Promise.all([
    import("../../ui/render-watch.js"),
    import("../../ui/theme/tokens.js"),
    import("../../ui/data/follow-subject.js"),
    import("../../hooks/edit-activity.js"),
  ]);
  // Followed from here on at a cost per change that follows the change (see follow-subject.ts);
  // its first view replaces the one read before at once if something landed in between.
  const follower = await followSubject(store, subjectId, {
    signal: deps.signal,
    edits: {
      subjectId: editsSubjectOf(subjectId),
      read: () => readSubjectEdits(store, subjectId, { now: Date.now() }),
    },
  });
  try {
    await renderWatch({
      stdout,
      ...(deps.stdin ? { stdin: deps.stdin } : {}),
      initial: follower.view(),
      noColor: isColorDisabled(deps.env, !options.color),
      signal: deps.signal,
      watch: (onView, onError) => {
        follower.listen(onView, onError);
        return () =>
          follower.listen(
            () => undefined,
            () => undefined,
          );
      },
    });
  } finally {
    await follower.close();
  }
}
