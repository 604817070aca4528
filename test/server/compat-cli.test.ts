import { Command } from "commander";
import { describe, expect, it } from "vitest";
import type { CliDeps } from "../../src/cli/cli-deps.js";
import { makeServeCommand } from "../../src/cli/commands/serve.js";
import { StatewaveClient } from "../../src/context/statewave/statewave-client.js";

async function waitForText(read: () => string, pattern: RegExp): Promise<RegExpExecArray> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const match = pattern.exec(read());
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never printed ${pattern}: ${read()}`);
}

describe("shared-ctx serve --compat statewave-0.7.1", () => {
  it("serves the v0.7.1 emulation: oldest 100 episodes, whatever the paging", async () => {
    let stdout = "";
    const controller = new AbortController();
    const deps: CliDeps = {
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: () => true },
      env: {},
      cwd: process.cwd(),
      signal: controller.signal,
    };
    const serve = makeServeCommand(deps).exitOverride();
    const running = new Command("shared-ctx")
      .exitOverride()
      .addCommand(serve)
      .parseAsync(["serve", "--compat", "statewave-0.7.1", "--port", "0"], { from: "user" });
    const [, url] = await waitForText(
      () => stdout,
      /emulating statewave-0\.7\.1 \(in memory\) on (http:\/\/\S+)/,
    );
    const client = new StatewaveClient(url ?? "");
    const episodes = Array.from({ length: 100 }, (_, index) => ({
      subjectId: "s",
      source: "a",
      type: "note",
      payload: { text: `note ${index}` },
    }));
    await client.createEpisodesBatch(episodes);
    await client.createEpisodesBatch(episodes.slice(0, 20));
    const page = await client.getTimeline("s", { limit: 10, offset: 100 });
    expect(page.episodes).toHaveLength(100);
    controller.abort();
    await running;
    expect(stdout).toContain("shared-ctx serve: stopped");
  });

  it("refuses an unknown version", async () => {
    const deps: CliDeps = {
      stdout: { write: () => true },
      stderr: { write: () => true },
      env: {},
      cwd: process.cwd(),
      signal: new AbortController().signal,
    };
    const serve = makeServeCommand(deps)
      .exitOverride()
      .configureOutput({ writeErr: () => undefined });
    await expect(
      new Command("shared-ctx")
        .exitOverride()
        .addCommand(serve)
        .parseAsync(["serve", "--compat", "statewave-1.4"], {
          from: "user",
        }),
    ).rejects.toMatchObject({ code: "commander.invalidArgument" });
  });
});
