import { execFileSync } from "node:child_process";
import { connect } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnTsChild, waitForExit } from "../support/run-child.js";
import { useTempDir } from "../support/temp-dir.js";

// biome-ignore lint/correctness/useHookAtTopLevel: useTempDir is a vitest helper, not a React hook.
const tempDir = useTempDir("shared-ctx-hangs-");
const child = "test/cli/fixtures/cli-child.ts";

/** Runs the CLI from source in `cwd` and kills it if it has not exited by `limitMs`. */
async function runBounded(args: string[], cwd: string, limitMs: number) {
  const started = Date.now();
  const process = spawnTsChild(child, [...args], { SHARED_CTX_DB: join(cwd, "store.db") });
  const killer = setTimeout(() => process.kill("SIGKILL"), limitMs);
  const result = await waitForExit(process);
  clearTimeout(killer);
  return { ...result, ms: Date.now() - started };
}

describe("the CLI never hangs on a path", () => {
  it("refuses a named pipe as a scenario at once, naming it (it used to block for ever)", async () => {
    const cwd = tempDir();
    const pipe = join(cwd, "scenario.yaml");
    execFileSync("mkfifo", [pipe]);
    const result = await runBounded(["run", "--scenario", pipe, "--mode", "naive"], cwd, 20_000);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(pipe);
    expect(result.stderr).toContain("found a named pipe");
  }, 30_000);

  it("refuses --db /proc/nope/x.db at once, naming the folder (it used to spin at 100 % CPU)", async () => {
    const cwd = tempDir();
    const result = await runBounded(
      ["run", "--mode", "naive", "--db", "/proc/nope/x.db"],
      cwd,
      20_000,
    );
    expect(result.signal).toBeNull();
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("/proc/nope cannot be created");
    expect(result.stderr).not.toContain("unexpected error");
  }, 30_000);
});

describe("serve stops on a signal however slow its clients", () => {
  it.each(["SIGINT", "SIGTERM"] as const)(
    "exits within seconds of %s with a stalled upload in flight",
    async (signal) => {
      const cwd = tempDir();
      const server = spawnTsChild(child, ["serve", "--port", "0", "--db", join(cwd, "s.db")]);
      const exited = waitForExit(server);
      const port = await new Promise<number>((resolve, reject) => {
        let out = "";
        server.stdout?.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
          if (match) resolve(Number(match[1]));
        });
        server.once("exit", () => reject(new Error(`serve exited: ${out}`)));
      });
      const socket = connect(port, "127.0.0.1");
      socket.on("error", () => undefined);
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      socket.write(
        `POST /v1/episodes HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = Date.now();
      server.kill(signal);
      const killer = setTimeout(() => server.kill("SIGKILL"), 15_000);
      const result = await exited;
      clearTimeout(killer);
      socket.destroy();
      expect(result.signal).toBeNull();
      expect(Date.now() - started).toBeLessThan(5000);
      expect(result.stdout).toContain("stopped; database closed");
    },
    30_000,
  );
});
