import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BenchMachine, benchMachine, loadAverage } from "./bench-machine.js";
import { type LatencyFigures, latency } from "./latency.js";

/**
 * `bench hooks`: what one edit hook costs a session, command hook (`shared-ctx hook pre-tool-use`,
 * a Node process per call, as Claude Code runs it) against HTTP hook (`POST /hooks/claude-code` to
 * one `shared-ctx serve`, as Claude Code's `"type": "http"` hooks call it), with 1 session and with
 * 32 sessions at once, in the same run over the same store. Each session alternates an edit the
 * hook refuses (a retired module: a read, a denial written) and one it lets through (a read).
 */

/** The goals of issue 38, for the HTTP hooks. */
export const hookTargets = { oneSessionP50Ms: 10, manySessionsP95Ms: 150 } as const;

/** One measured configuration. */
export interface HookFigure extends LatencyFigures {
  readonly transport: "command" | "http";
  readonly sessions: number;
  /** The goal this figure is held to, when it has one. */
  readonly target?: { readonly stat: "p50" | "p95"; readonly ms: number; readonly met: boolean };
}

/** The whole run. */
export interface HooksBenchResult {
  readonly figures: readonly HookFigure[];
  readonly callsPerSession: { readonly command: number; readonly http: number };
  readonly machine: BenchMachine;
}

/** Options of {@link runHooksBench}. */
export interface HooksBenchOptions {
  /** A scratch folder the run may fill. */
  readonly dir: string;
  /** bin/shared-ctx.js of the build measured. @default this package's */
  readonly binPath?: string;
  /** Fewer calls (a smoke run). @default false */
  readonly quick?: boolean;
  readonly onProgress?: (message: string) => void;
}

const defaultBin = fileURLToPath(new URL("../../bin/shared-ctx.js", import.meta.url));

/** The project: legacy-billing retired by a decision, payments free; the store seeded. */
async function seedProject(dir: string): Promise<{ root: string; db: string }> {
  const root = join(dir, "acme");
  for (const module of ["legacy-billing", "payments"]) {
    mkdirSync(join(root, "src", module), { recursive: true });
    writeFileSync(join(root, "src", module, "index.ts"), "export {};\n");
  }
  mkdirSync(join(root, ".git"), { recursive: true });
  const db = join(root, ".shared-ctx", "store.db");
  mkdirSync(join(root, ".shared-ctx"), { recursive: true });
  const [{ EmbeddedStore }, { SharedContext }] = await Promise.all([
    import("../context/embedded/embedded-store.js"),
    import("../context/shared-context.js"),
  ]);
  const store = new EmbeddedStore({ path: db });
  try {
    const shared = new SharedContext({ store, subjectId: "acme" });
    await shared.decide("session-a", "Retire legacy-billing", {
      kind: "architectural_decision",
      target: "legacy-billing",
    });
    await shared.close();
  } finally {
    await store.close();
  }
  return { root, db };
}

/** Claude Code's PreToolUse input for session `session`'s `call`-th edit. */
function hookInput(root: string, session: number, call: number): string {
  const module = call % 2 === 0 ? "legacy-billing" : "payments";
  const file = join(root, "src", module, "index.ts");
  return JSON.stringify({
    session_id: `session-${session}`,
    transcript_path: join(root, `session-${session}.jsonl`),
    cwd: root,
    permission_mode: "acceptEdits",
    hook_event_name: "PreToolUse",
    tool_name: "Edit",
    tool_input: {
      file_path: file,
      old_string: "export {};",
      new_string: `export const n = ${call};`,
    },
  });
}

/** Runs `node args` with `input` on stdin; resolves when it exits (rejects on a non-zero exit). */
function runNode(args: readonly string[], input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args], { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`exit ${code}: ${stderr.slice(0, 300)}`)),
    );
    child.stdin?.end(input);
  });
}

/** `shared-ctx serve --port 0` on the project's store; resolves with its URL once it listens. */
function startServe(binPath: string, db: string): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, "serve", "--port", "0", "--db", db], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ url, child });
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      reject(new Error(`serve exited (${code}) before listening: ${out}`)),
    );
  });
}

/** `sessions` sessions at once, each making `calls` calls one after the other: every call's ms. */
async function sessionsAtOnce(
  sessions: number,
  calls: number,
  call: (session: number, index: number) => Promise<void>,
): Promise<number[]> {
  const samples: number[] = [];
  await Promise.all(
    Array.from({ length: sessions }, async (_, session) => {
      for (let index = 0; index < calls; index += 1) {
        const started = performance.now();
        await call(session, index);
        samples.push(performance.now() - started);
      }
    }),
  );
  return samples;
}

/** Measures the four configurations (command/HTTP × 1/32 sessions) in one run. */
export async function runHooksBench(options: HooksBenchOptions): Promise<HooksBenchResult> {
  const progress = options.onProgress ?? (() => undefined);
  const binPath = options.binPath ?? defaultBin;
  const loadBefore = loadAverage(2);
  const { root, db } = await seedProject(options.dir);
  const perSession = options.quick ? { command: 2, http: 10 } : { command: 6, http: 60 };
  const command = (session: number, index: number) =>
    runNode(
      [binPath, "hook", "pre-tool-use", "--root", root, "--db", db, "--subject", "acme"],
      hookInput(root, session, index),
    );
  const server = await startServe(binPath, db);
  const http = async (session: number, index: number) => {
    const response = await fetch(`${server.url}/hooks/claude-code?subject=acme`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: hookInput(root, session, index),
    });
    await response.text();
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
  };
  const figures: HookFigure[] = [];
  try {
    await http(0, 0); // warm-up: the server's first call loads the hook's modules
    for (const sessions of [1, 32]) {
      progress(`command hooks: ${sessions} session(s) × ${perSession.command} calls`);
      figures.push({
        transport: "command",
        sessions,
        ...latency(await sessionsAtOnce(sessions, perSession.command, command)),
      });
      progress(`HTTP hooks: ${sessions} session(s) × ${perSession.http} calls`);
      const measured = latency(await sessionsAtOnce(sessions, perSession.http, http));
      const target =
        sessions === 1
          ? {
              stat: "p50" as const,
              ms: hookTargets.oneSessionP50Ms,
              met: measured.p50 <= hookTargets.oneSessionP50Ms,
            }
          : {
              stat: "p95" as const,
              ms: hookTargets.manySessionsP95Ms,
              met: measured.p95 <= hookTargets.manySessionsP95Ms,
            };
      figures.push({ transport: "http", sessions, ...measured, target });
    }
  } finally {
    server.child.kill("SIGTERM");
  }
  return {
    figures,
    callsPerSession: perSession,
    machine: benchMachine({ loadBefore, loadAfter: loadAverage(2) }),
  };
}

/** The figures as a table, with MET/MISSED for each goal. */
export function formatHooksBenchTable(result: HooksBenchResult): string {
  const lines = [
    "edit hook latency (PreToolUse, half refused), ms per call, command hooks against HTTP hooks",
    "transport  sessions   p50      p95      calls   goal",
  ];
  for (const figure of result.figures) {
    const goal = figure.target
      ? `${figure.target.stat} <= ${figure.target.ms} ms: ${figure.target.met ? "MET" : "MISSED"}`
      : "";
    lines.push(
      [
        figure.transport.padEnd(9),
        String(figure.sessions).padStart(8),
        figure.p50.toFixed(1).padStart(8),
        figure.p95.toFixed(1).padStart(8),
        String(figure.samples).padStart(7),
        ` ${goal}`,
      ].join(" "),
    );
  }
  const { machine } = result;
  lines.push(
    `machine: ${machine.platform}, ${machine.cpus} CPUs, node ${machine.node}, load ${machine.loadBefore} → ${machine.loadAfter}`,
  );
  return `${lines.join("\n")}\n`;
}
