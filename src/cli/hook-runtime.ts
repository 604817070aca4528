import { basename, resolve } from "node:path";
import type { ContextStore } from "../context/context-store.js";
import type { CreateContextStoreOptions } from "../context/store-location.js";
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
 * Opens the store the flags select (relative to the project root), runs `work` with a signal that
 * aborts after `hooks.timeoutMs`, and closes the store. Any failure of the store — cannot open,
 * refused, too slow — comes back as a {@link StoreUnavailable} value, never thrown: each hook
 * decides what a store that is down means (`hooks.whenStoreDown`).
 */
export async function withHookStore<T>(
  options: HookCommandOptions,
  deps: CliDeps,
  setup: HookProject,
  work: (store: ContextStore, signal: AbortSignal) => Promise<T>,
): Promise<T | StoreUnavailable> {
  const signal = AbortSignal.any([deps.signal, AbortSignal.timeout(setup.project.hooks.timeoutMs)]);
  let store: ContextStore;
  try {
    const { openContextStore } = await import("../context/open-context-store.js");
    store = await openContextStore(hookStoreOptions(options, deps, setup));
  } catch (error) {
    return new StoreUnavailable(error);
  }
  try {
    const aborted = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
    // The race: a store call that ignores the signal must still not hold the edit past the budget.
    return await Promise.race([work(store, signal), aborted]);
  } catch (error) {
    if (deps.signal.aborted) throw error;
    return new StoreUnavailable(error);
  } finally {
    await store.close().catch(() => undefined);
  }
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

/** Reads all of stdin (a hook's JSON input), bounded. */
export async function readStdin(deps: CliDeps, limit: number): Promise<string> {
  const stdin = deps.stdin;
  if (!stdin || stdin.isTTY) {
    throw new UsageError(
      "a hook reads its input (the harness's JSON) on standard input; pipe it in, e.g. echo '{…}' | shared-ctx hook pre-tool-use",
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > limit) throw new UsageError(`hook input is over ${limit} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
