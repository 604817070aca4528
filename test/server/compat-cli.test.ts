import { describe, expect, it } from "vitest";
import { StatewaveClient } from "../../src/context/statewave/statewave-client.js";
import { captureDeps, serveProgram, waitForText } from "../support/serve-program.js";

describe("shared-ctx serve --compat statewave-0.7.1", () => {
  it("serves the v0.7.1 emulation: oldest 100 episodes, whatever the paging", async () => {
    const controller = new AbortController();
    const { deps, out } = captureDeps({}, process.cwd(), controller.signal);
    const running = serveProgram(deps).parseAsync(
      ["serve", "--compat", "statewave-0.7.1", "--port", "0"],
      { from: "user" },
    );
    const [, url] = await waitForText(
      out,
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
    expect(out()).toContain("shared-ctx serve: stopped");
  });

  it("refuses an unknown version", async () => {
    const { deps } = captureDeps({}, process.cwd(), new AbortController().signal);
    await expect(
      serveProgram(deps).parseAsync(["serve", "--compat", "statewave-1.4"], { from: "user" }),
    ).rejects.toMatchObject({ code: "commander.invalidArgument" });
  });
});
