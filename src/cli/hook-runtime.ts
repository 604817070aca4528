import { existsSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { ContextStore } from "../context/context-store.js";
import { DbPathError } from "../context/errors/db-path-error.js";
import { type CreateContextStoreOptions, resolveStoreLocation } from "../context/store-location.js";
import type { EditHookContext } from "../hooks/edit-hooks.js";
import { ProjectConfigError } from "../hooks/errors/project-config-error.js";
import { loadProject, nodeProjectFileSystem } from "../hooks/load-project.js";
import type { ProjectConfig } from "../hooks/project-config.js";
import { findProjectRoots, sharedRootOf } from "../hooks/project-root.js";
import type { CliDeps } from "./cli-deps.js";
import { asUsageErrorWhen, UsageError } from "./fatal-error.js";

/**
 * What the edit-hook commands (`hook …`, `check`, `modules`, `init claude-code`) share: the
 * project (root, modules, settings), the subject, and the store opened with the same flags as
 * `shared-ctx mcp`, within the hook's time budget. Free of commander: the hook's fast path
 * (hook-main.ts) runs it without building the command table.
 */

/** The flags every edit-hook command takes (`mcp`'s store flags plus the project's). */
export interface HookCommandOptions {
  subject?: string;
  agent?: string;
  root?: string;
  db?: string;
  store?: "embedded" | "statewave" | "postgres";
  url?: string;
  databaseUrl?: string;
}

/** The project a hook call works in. */
export interface HookProject {
  /** The checkout the session edits: module globs are relative to it. */
  readonly root: string;
  /**
   * The same project in the repository all worktrees share: the embedded store's folder and the
   * default subject's name (see project-root.ts). `root` outside a linked worktree.
   */
  readonly storeRoot: string;
  readonly project: ProjectConfig;
  readonly subjectId: string;
}

/**
 * Finds the project root (`--root` as given; else walking up from $CLAUDE_PROJECT_DIR, the hook
 * input's cwd or the process's cwd to shared-ctx.config.json or the git checkout) and the shared
 * root of its repository (the main checkout, from any worktree), reads the configuration and picks
 * the subject (by default the shared root's name, so every worktree has the same one).
 * @throws UsageError when the configuration is invalid (naming the file and field)
 */
export function resolveHookProject(
  options: Pick<HookCommandOptions, "root" | "subject">,
  deps: Pick<CliDeps, "cwd" | "env">,
  inputCwd?: string,
): HookProject {
  const fs = nodeProjectFileSystem;
  let root: string;
  let storeRoot: string;
  if (options.root) {
    root = resolve(deps.cwd, options.root);
    storeRoot = sharedRootOf(root, fs);
  } else {
    const start = deps.env.CLAUDE_PROJECT_DIR || inputCwd || deps.cwd;
    ({ root, storeRoot } = findProjectRoots(resolve(deps.cwd, start), fs));
  }
  let project: ProjectConfig;
  try {
    project = loadProject(root);
  } catch (error) {
    throw asUsageErrorWhen(error, ProjectConfigError);
  }
  const subjectId =
    options.subject ?? project.subject ?? deps.env.SHARED_CTX_SUBJECT ?? basename(storeRoot);
  return { root, storeRoot, project, subjectId };
}

/** The store could not answer within the hook's budget (or at all). */
export class StoreUnavailable {
  readonly cause: unknown;
  constructor(cause: unknown) {
    this.cause = cause;
  }
  /** One line for a person: what failed. */
  get message(): string {
    const cause = this.cause;
    if (cause instanceof Error) {
      return cause.name === "TimeoutError" || cause.name === "AbortError"
        ? "it did not answer in time"
        : cause.message;
    }
    return String(cause);
  }
  /** How the store is down, in words: `is unreachable`, or `cannot be opened` (a file problem). */
  get state(): string {
    return this.cause instanceof DbPathError ? "cannot be opened" : "is unreachable";
  }
}

/**
 * The store the flags select, as every command of a project opens it (hooks, `check`, `mcp`,
 * `modules`): relative paths taken from the shared root (`HookProject.storeRoot`), not the cwd: a
 * session's shell may have moved elsewhere, and every worktree of the repository must open the
 * same file.
 */
export function hookStoreOptions(
  options: Omit<HookCommandOptions, "agent" | "subject" | "root">,
  deps: Pick<CliDeps, "env">,
  setup: Pick<HookProject, "storeRoot">,
): CreateContextStoreOptions & { env: Readonly<Record<string, string | undefined>>; cwd: string } {
  return {
    ...(options.store ? { store: options.store } : {}),
    ...(options.db ? { db: resolve(setup.storeRoot, options.db) } : {}),
    ...(options.url ? { url: options.url } : {}),
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
    env: deps.env,
    cwd: setup.storeRoot,
  };
}

/**
 * The embedded store's lock wait inside a hook: half the budget. The wait blocks the thread (no
 * timer fires meanwhile), so the reads before it and the answer after it keep the other half:
 * another process's long write then costs the record of a verdict, never the verdict.
 */
export function hookBusyTimeoutMs(timeoutMs: number): number {
  return Math.floor(timeoutMs / 2);
}

/**
 * A `--db` (or `SHARED_CTX_DB`) in a folder that does not exist: a typo, or a path from another
 * machine. Opening it would create a new, empty store, where no decision exists and every edit
 * passes in silence; the hooks refuse to. A store's own `.shared-ctx` folder in a folder that
 * exists is created, as every command does (a store never opened has no decision to miss).
 */
function missingStoreFolder(options: HookCommandOptions, deps: CliDeps, setup: HookProject) {
  const db = options.db ?? (deps.env.SHARED_CTX_DB || undefined);
  if (db === undefined || db === ":memory:") return undefined;
  const location = resolveStoreLocation({ ...options, db, env: deps.env, cwd: setup.storeRoot });
  if (location.kind !== "embedded") return undefined;
  const folder = dirname(location.path);
  if (existsSync(folder)) return undefined;
  if (basename(folder) === ".shared-ctx" && existsSync(dirname(folder))) return undefined;
  const flag = options.db !== undefined ? "--db" : "SHARED_CTX_DB";
  return new DbPathError(
    location.path,
    folder,
    `does not exist (${flag} names it; the hooks never create a store there: create the folder, or fix ${flag})`,
  );
}

/** Rejects when `signal` aborts: a store call that ignores the signal must not outlast it. */
function abortion(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** What {@link withHookStoreRecording} gives back: the verdict, and the record's failure if any. */
export interface RecordedResult<T> {
  readonly value: T;
  /** Set when recording failed or ran out of time: the verdict stands, a person is told. */
  readonly recordFailure?: StoreUnavailable;
}

/**
 * Opens the store the flags select (relative to the project root), runs `decide` with a signal
 * that aborts after `hooks.timeoutMs`, then `record` with what is left of it, and closes the
 * store. A failure of the store while deciding — cannot open, refused, too slow — comes back as a
 * {@link StoreUnavailable} value, never thrown: each hook decides what a store that is down means
 * (`hooks.whenStoreDown`). A failure while recording never changes the verdict: it comes back
 * beside it, as `recordFailure`.
 */
export async function withHookStoreRecording<T>(
  options: HookCommandOptions,
  deps: CliDeps,
  setup: HookProject,
  decide: (store: ContextStore, signal: AbortSignal) => Promise<T>,
  record?: (value: T, store: ContextStore, signal: AbortSignal) => Promise<void>,
): Promise<RecordedResult<T> | StoreUnavailable> {
  const timeoutMs = setup.project.hooks.timeoutMs;
  const signal = AbortSignal.any([deps.signal, AbortSignal.timeout(timeoutMs)]);
  const missing = missingStoreFolder(options, deps, setup);
  if (missing) return new StoreUnavailable(missing);
  let store: ContextStore;
  try {
    const { openContextStore } = await import("../context/open-context-store.js");
    store = await openContextStore({
      ...hookStoreOptions(options, deps, setup),
      busyTimeoutMs: hookBusyTimeoutMs(timeoutMs),
    });
  } catch (error) {
    return new StoreUnavailable(error);
  }
  try {
    let value: T;
    try {
      // The race: a store call that ignores the signal must still not hold the edit past the budget.
      value = await Promise.race([decide(store, signal), abortion(signal)]);
    } catch (error) {
      if (deps.signal.aborted) throw error;
      return new StoreUnavailable(error);
    }
    if (record === undefined) return { value };
    // Out of time already: a record would only wait for the lock again (synchronously).
    if (signal.aborted) return { value, recordFailure: new StoreUnavailable(signal.reason) };
    try {
      await Promise.race([record(value, store, signal), abortion(signal)]);
      return { value };
    } catch (error) {
      if (deps.signal.aborted) throw error;
      return { value, recordFailure: new StoreUnavailable(error) };
    }
  } finally {
    await store.close().catch(() => undefined);
  }
}

/**
 * {@link withHookStoreRecording} with nothing to record apart: `work`'s failure (or slowness) is a
 * {@link StoreUnavailable}.
 */
export async function withHookStore<T>(
  options: HookCommandOptions,
  deps: CliDeps,
  setup: HookProject,
  work: (store: ContextStore, signal: AbortSignal) => Promise<T>,
): Promise<T | StoreUnavailable> {
  const result = await withHookStoreRecording(options, deps, setup, work);
  return result instanceof StoreUnavailable ? result : result.value;
}

/** The hook context for one call. */
export function hookContext(
  setup: HookProject,
  store: ContextStore,
  agent: string,
  signal: AbortSignal,
): EditHookContext {
  return {
    store,
    subjectId: setup.subjectId,
    agent,
    root: setup.root,
    project: setup.project,
    signal,
  };
}

/** Standard input, when something is piped in. @throws UsageError on a terminal */
function pipedStdin(deps: CliDeps): NodeJS.ReadableStream {
  const stdin = deps.stdin;
  if (!stdin || stdin.isTTY) {
    throw new UsageError(
      "a hook reads its input (the harness's JSON) on standard input; pipe it in, e.g. echo '{…}' | shared-ctx hook pre-tool-use",
    );
  }
  return stdin;
}

/**
 * Reads a hook's JSON input as far as the check needs: streamed, each string kept up to its first
 * 256 KiB (see skim-json.ts), so a `Write` of any size is judged by its path, never refused for
 * the size of its content.
 */
export async function readHookInputText(deps: CliDeps): Promise<string> {
  const { skimJson } = await import("../hooks/skim-json.js");
  return skimJson(pipedStdin(deps) as AsyncIterable<Buffer | string>);
}
