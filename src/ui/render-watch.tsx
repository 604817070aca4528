import { useApp, useInput } from "ink";
import { useEffect, useState } from "react";
import { messageOf } from "../errors.js";
import { SubjectWatchView } from "./components/subject-watch-view.js";
import type { SubjectView } from "./format/subject-view.js";
import { useTerminalSize } from "./hooks/use-terminal-size.js";
import { renderUntilQuit } from "./render-until-quit.js";

/** Delivers the subject's view again whenever the store changes; returns the unsubscribe function. */
export type WatchSubject = (
  onView: (view: SubjectView) => void,
  onError: (error: unknown) => void,
) => () => void;

/** Props of {@link WatchApp}. */
export type WatchAppProps = {
  readonly initial: SubjectView;
  readonly watch: WatchSubject;
};

/** The live subject view: the store's changes in, the view out; `q`, Esc or Ctrl-C quit. */
export function WatchApp({ initial, watch }: WatchAppProps) {
  const { exit } = useApp();
  const { rows } = useTerminalSize();
  const [view, setView] = useState(initial);
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let cancelled = false;
    const unsubscribe = watch(
      (next) => {
        if (cancelled) return;
        setView(next);
        setError(undefined);
      },
      (failure) => {
        if (!cancelled) setError(messageOf(failure));
      },
    );
    return () => {
      cancelled = true;
      unsubscribe();
    };
  }, [watch]);
  useInput((input, key) => {
    if (input === "q" || key.escape || (key.ctrl && input === "c")) exit();
  });
  return <SubjectWatchView view={view} rows={rows} error={error} />;
}

/** Runs the live subject view until the user quits or `signal` aborts. */
export async function renderWatch(options: {
  readonly stdout: NodeJS.WriteStream;
  readonly stdin?: NodeJS.ReadStream;
  readonly initial: SubjectView;
  readonly watch: WatchSubject;
  readonly noColor?: boolean;
  readonly signal?: AbortSignal;
}): Promise<void> {
  await renderUntilQuit(<WatchApp initial={options.initial} watch={options.watch} />, options);
}
