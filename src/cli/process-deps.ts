import { existsSync } from "node:fs";
import { join } from "node:path";
import type { CliDeps } from "./cli-deps.js";
import { FatalError } from "./fatal-error.js";
import { InterruptedError, type StopSignal, stopSignals } from "./interrupted-error.js";
import { OutputClosedError } from "./output-closed-error.js";

/**
 * Runs `run` with the real process around it: `.env` loaded, SIGINT/SIGTERM and a closed stdout
 * turned into `deps.signal`'s abort, the streams, environment and cwd as {@link CliDeps}. The one
 * place (with bin/) that touches `process`; shared by the full CLI (main.ts) and the hook's fast
 * path (hook-main.ts), so both stop and fail alike.
 */
export async function withProcess<T>(run: (deps: CliDeps) => Promise<T>): Promise<T> {
  // .env is optional (and dotenv is not loaded without one: start-up cost); quiet so it never
  // prints into --json output.
  if (existsSync(join(process.cwd(), ".env"))) {
    const { config } = await import("dotenv");
    config({ quiet: true });
  }

  const controller = new AbortController();
  // The first signal stops the command cleanly (agents stopped, run recorded `interrupted`); a
  // second one ends the process at once. `on`, not `once`: Ink's signal-exit re-raises a signal
  // that no other listener handles, which would kill the process before the run is recorded.
  const onSignal = (signal: StopSignal) => {
    if (controller.signal.aborted) process.exit(new InterruptedError(signal).exitCode);
    controller.abort(new InterruptedError(signal));
  };
  for (const signal of stopSignals) process.on(signal, onSignal);
  // Without a listener, a reader that goes away (`run | head -2`) crashes the process with an
  // EPIPE stack. Never removed: writes still queued when `main` returns fail the same way.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    controller.abort(
      error.code === "EPIPE"
        ? new OutputClosedError({ cause: error })
        : new FatalError(`cannot write to standard output: ${error.message}`, { cause: error }),
    );
  });
  // Nothing useful can be said once stderr is gone too.
  process.stderr.on("error", () => undefined);

  const deps: CliDeps = {
    stdout: process.stdout,
    stderr: process.stderr,
    // A getter: Node builds process.stdin (a TTY or socket stream) on first access, which most
    // commands never make (start-up).
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
  };
  try {
    return await run(deps);
  } finally {
    for (const signal of stopSignals) process.off(signal, onSignal);
  }
}
