/** Exit codes of the `shared-ctx` command. A collision found by a run is a finding, not a failure. */
export const ExitCode = {
  /** The command did what was asked (a run finished, whatever it found). */
  ok: 0,
  /** Something failed at run time: a store that cannot be opened, a server that is down, a model error. */
  failure: 1,
  /** The command line or an input file is wrong: unknown flag, invalid scenario, unknown run id. */
  usage: 2,
  /** `shared-ctx check`: the shared context refuses the edit (a retired, held or disputed module). */
  editDenied: 3,
  /** `shared-ctx check`: the edit needs the person's approval (`hooks.onConflict: "ask"`). */
  editAsk: 4,
  /** `shared-ctx promote`: a conflicting decision is held until someone approves or rejects it. */
  promotionHeld: 5,
  /** Stopped by Ctrl-C (SIGINT): 128 + 2, as a shell reports a process the signal ended. */
  interrupted: 130,
  /** Stopped by SIGTERM: 128 + 15. */
  terminated: 143,
  /** Stopped because its terminal went away (SIGHUP): 128 + 1. */
  hangup: 129,
} as const;

/** One of the {@link ExitCode} values: what `runCli` resolves to and the process exits with. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
