import { spawn } from "node:child_process";
import { mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import type { CliDeps } from "./cli-deps.js";
import { readHookInputText, resolveHookProject } from "./hook-runtime.js";
import type { HookRunOptions } from "./run-hook.js";

/**
 * `shared-ctx hook session-start --server URL`: the one command hook of a set-up whose edit hooks
 * are HTTP hooks (`init claude-code --server URL`). It makes sure the server is up — a loopback
 * URL that does not answer gets `shared-ctx serve` started in the background, on the project's
 * store — then posts the session's input to the server's hook route and prints its answer. When
 * the server cannot be reached it says so in the session (Claude Code treats a failed HTTP hook as
 * a non-blocking error: every edit would go through unchecked, silently).
 */

/** How long a started server may take to answer `/healthz`. */
const startBudgetMs = 8000;

/** Starts `shared-ctx serve` detached, its output in `log`. Injected in tests. */
export type ServerStarter = (args: readonly string[], log: string) => void;

/** The real starter: this same shared-ctx, by the node and script that run it now. */
const startDetached: ServerStarter = (args, log) => {
  const script = process.argv[1];
  if (script === undefined) return;
  const out = openSync(log, "a");
  spawn(process.execPath, [script, ...args], {
    detached: true,
    stdio: ["ignore", out, out],
  }).unref();
};

async function healthy(base: string): Promise<boolean> {
  try {
    const response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(500) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

function isLoopback(url: URL): boolean {
  return ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

/** Forwards the hook on stdin to the server at `options.server`, starting it when it is down. */
export async function forwardHook(
  options: HookRunOptions & { server: string },
  deps: CliDeps,
  start: ServerStarter = startDetached,
): Promise<void> {
  const input = await readHookInputText(deps);
  const url = new URL(options.server);
  const base = url.origin;
  let note: string | undefined;
  if (!(await healthy(base)) && isLoopback(url)) {
    const { root } = resolveHookProject(options, deps);
    const folder = join(root, ".shared-ctx");
    mkdirSync(folder, { recursive: true });
    const db = options.db ? join(root, options.db) : join(folder, "store.db");
    start(
      [
        "serve",
        "--host",
        url.hostname.replace(/^\[|\]$/g, ""),
        "--port",
        url.port || "80",
        "--db",
        db,
      ],
      join(folder, "serve.log"),
    );
    const until = Date.now() + startBudgetMs;
    while (Date.now() < until && !(await healthy(base))) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    note = `shared-ctx: started shared-ctx serve on ${base} (store ${db}, log ${join(folder, "serve.log")})`;
  }
  const harness = options.harness ?? "claude-code";
  const query = options.subject ? `?subject=${encodeURIComponent(options.subject)}` : "";
  const key = deps.env.SHARED_CTX_API_KEY;
  const agent = options.agent ?? deps.env.SHARED_CTX_AGENT;
  try {
    const response = await fetch(`${base}/hooks/${harness}${query}`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        ...(key ? { "X-API-Key": key } : {}),
        ...(agent ? { "X-Shared-Ctx-Agent": agent } : {}),
      },
      body: input,
      signal: AbortSignal.timeout(5000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
    if (text.trim() !== "") deps.stdout.write(`${text.trim()}\n`);
    else if (note) deps.stderr.write(`${note}\n`);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const fix = isLoopback(url)
      ? `start it: shared-ctx serve --port ${url.port || "80"}, then start this session again`
      : "ask whoever runs it to bring it back";
    const warning = `shared-ctx: the shared-ctx server at ${base} cannot be reached (${why}). Claude Code lets an edit through when its HTTP hook fails: this session's edits are NOT checked against the team's decisions until the server is back (${fix}).`;
    deps.stdout.write(
      `${JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: warning }, systemMessage: warning })}\n`,
    );
  }
}
