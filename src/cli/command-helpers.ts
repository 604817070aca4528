import { resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import type { Brain } from "../agents/brain.js";
import type { ContextStore } from "../context/context-store.js";
import { codePointLength, hasUnstorableText, inputLimits } from "../context/validate-input.js";
import { nodeProjectFileSystem } from "../hooks/load-project.js";
import { findProjectRoots } from "../hooks/project-root.js";
import { LlmConfigError } from "../llm/errors/llm-config-error.js";
import { readLlmSettings } from "../llm/llm-settings.js";
import type { StoreSelection } from "../ui/data/open-store.js";
import type { CliDeps, OutputStream } from "./cli-deps.js";
import { asUsageErrorWhen } from "./fatal-error.js";

/** Commander parser for `--speed`: a finite number above zero. */
export function parsePositiveNumber(raw: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError("expected a number > 0");
  }
  return value;
}

/**
 * Commander parser for a subject id (`--into`, `--subject`, a subject argument): the store's id
 * rule, checked on the command line so that a wrong one is a usage error naming its flag (exit 2),
 * not a store error from deep inside the command.
 */
export function parseSubjectId(raw: string): string {
  const max = inputLimits.subjectId;
  if (raw.length === 0) throw new InvalidArgumentError("expected a subject id, got nothing");
  if (codePointLength(raw) > max) {
    throw new InvalidArgumentError(`expected a subject id of at most ${max} characters`);
  }
  if (hasUnstorableText(raw)) {
    throw new InvalidArgumentError("expected a subject id without U+0000 or unpaired surrogates");
  }
  return raw;
}

/** Commander parser for `--seed`: any whole number. */
export function parseSeed(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new InvalidArgumentError("expected a whole number");
  return value;
}

/**
 * True when the terminal cannot move its cursor (`TERM=dumb`: Emacs shell buffers, some CI
 * log viewers): an animated view there is hundreds of cursor-ups and erased lines, so commands
 * print their plain output instead.
 */
export function isDumbTerminal(
  env: NodeJS.ProcessEnv | Record<string, string | undefined>,
): boolean {
  return env.TERM === "dumb";
}

/**
 * True when the command may draw its live (Ink) view: stdout is a terminal that can move its
 * cursor. Otherwise it prints plain lines, as for a pipe.
 */
export function drawsLive(deps: Pick<CliDeps, "stdout" | "env">): boolean {
  return isTerminal(deps.stdout) && !isDumbTerminal(deps.env);
}

/** True for a real terminal stream (what Ink needs), not a pipe or a test buffer. */
export function isTerminal(stream: OutputStream): stream is OutputStream & NodeJS.WriteStream {
  return stream.isTTY === true && "on" in stream;
}

/**
 * The brain the agents think with, from `LLM_*` in the environment. A malformed variable is the
 * user's input, so it is a usage error (exit 2), not a runtime failure.
 */
export async function brainFromEnv(deps: CliDeps): Promise<Brain> {
  try {
    // Without LLM_MODEL the AI SDK is never loaded: it costs the demo's first frame ~100 ms.
    if (readLlmSettings(deps.env) === undefined) {
      const { createOfflineBrain } = await import("../agents/offline-brain.js");
      return createOfflineBrain();
    }
    const { createBrainFromEnv } = await import("../agents/create-brain.js");
    return createBrainFromEnv(deps.env);
  } catch (error) {
    throw asUsageErrorWhen(error, LlmConfigError);
  }
}

/** The store flags as commander parses them: `--store`, `--db`, `--url`, `--database-url`. */
export interface StoreFlags {
  store?: "embedded" | "statewave";
  db?: string;
  url?: string;
  databaseUrl?: string;
}

/**
 * The store a command's `--store`, `--db`, `--url` (and `--database-url`) flags select, with the
 * environment's defaults (`SHARED_CTX_DATABASE_URL` selects Postgres). Without `--db` or
 * `SHARED_CTX_DB`, the embedded store is the repository's (`<shared root>/.shared-ctx/store.db`,
 * the one the hooks and `mcp` use from any worktree or subfolder); a `--db` given on the command
 * line is relative to where it was typed.
 */
export function storeSelection(options: StoreFlags, deps: CliDeps): StoreSelection {
  return {
    store: options.store,
    db:
      options.db === undefined || options.db === ":memory:"
        ? options.db
        : resolve(deps.cwd, options.db),
    url: options.url,
    ...(options.databaseUrl !== undefined ? { databaseUrl: options.databaseUrl } : {}),
    env: deps.env,
    cwd: findProjectRoots(deps.cwd, nodeProjectFileSystem).storeRoot,
  };
}

/**
 * The options every command that reads or writes the store takes, worded alike everywhere:
 * `--store`, `--db`, `--url` and `--database-url` (each a fresh `Option`: commander owns what it adds).
 */
export const storeOptions = {
  /** `--store`; `what` is what the store keeps ("the run", "the runs", "the subject"). */
  kind: (what: string): Option =>
    new Option("--store <kind>", `where to keep ${what}`).choices(["embedded", "statewave"]),
  db: (): Option =>
    new Option(
      "--db <path>",
      "embedded store file (default: $SHARED_CTX_DB or .shared-ctx/store.db)",
    ),
  url: (): Option =>
    new Option("--url <url>", "Statewave server, with --store statewave (default: $STATEWAVE_URL)"),
  databaseUrl: (): Option =>
    new Option(
      "--database-url <url>",
      "a Postgres database, postgres://… (default: $SHARED_CTX_DATABASE_URL)",
    ),
};

/** Adds the four {@link storeOptions} to `command`; `what` is what the store keeps ("the runs"). */
export function addStoreOptions(command: Command, what: string): Command {
  return command
    .addOption(storeOptions.kind(what))
    .addOption(storeOptions.db())
    .addOption(storeOptions.url())
    .addOption(storeOptions.databaseUrl());
}

/**
 * Runs `use` on the store the flags select and closes the store afterwards, whatever happens.
 * `storeName` is where the store lives, for messages that name it (a password never shows).
 * @param open.mustExist refuse to create a new embedded file (commands that only read)
 */
export async function withSelectedStore<T>(
  flags: StoreFlags,
  deps: CliDeps,
  open: { mustExist?: boolean },
  use: (store: ContextStore, storeName: string) => Promise<T>,
): Promise<T> {
  // Loaded here, not at the top: the store's driver is for a command's action, not for `--help`.
  const { describeStoreLocation, openStore } = await import("../ui/data/open-store.js");
  const selection = storeSelection(flags, deps);
  const storeName = describeStoreLocation(selection).location;
  const store = await openStore(selection, open);
  try {
    return await use(store, storeName);
  } finally {
    await store.close();
  }
}
