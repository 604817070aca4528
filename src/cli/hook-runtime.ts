import { basename, resolve } from "node:path";
import type { ContextStore } from "../context/context-store.js";
import type { EditHookContext } from "../hooks/edit-hooks.js";
import { ProjectConfigError } from "../hooks/errors/project-config-error.js";
import { findProjectRoot, loadProject } from "../hooks/load-project.js";
import type { ProjectConfig } from "../hooks/project-config.js";
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
  readonly root: string;
  readonly project: ProjectConfig;
  readonly subjectId: string;
}

/**
 * Finds the project root (flag, $CLAUDE_PROJECT_DIR, the hook input's cwd, the process's cwd),
 * reads its configuration and picks the subject.
 * @throws UsageError when the configuration is invalid (naming the file and field)
 */
export function resolveHookProject(
  options: HookCommandOptions,
  deps: CliDeps,
  inputCwd?: string,
): HookProject {
  const root = options.root
    ? resolve(deps.cwd, options.root)
    : deps.env.CLAUDE_PROJECT_DIR
      ? resolve(deps.env.CLAUDE_PROJECT_DIR)
      : findProjectRoot(inputCwd ?? deps.cwd);
  let project: ProjectConfig;
  try {
    project = loadProject(root);
  } catch (error) {
    throw asUsageErrorWhen(error, ProjectConfigError);
  }
  const subjectId =
    options.subject ?? project.subject ?? deps.env.SHARED_CTX_SUBJECT ?? basename(root);
  return { root, project, subjectId };
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
    store = await openContextStore({
      ...(options.store ? { store: options.store } : {}),
      // Relative to the project root, not the cwd: a session's shell may have moved elsewhere.
      ...(options.db ? { db: resolve(setup.root, options.db) } : {}),
      ...(options.url ? { url: options.url } : {}),
      ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
      env: deps.env,
      cwd: setup.root,
    });
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
