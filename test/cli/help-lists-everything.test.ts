import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { runModes } from "../../src/coordination/run-events.js";
import { openSharedContextMcpServer } from "../../src/integrations/mcp-server.js";
import { defaultDemoScenario, defaultScenarioName } from "../../src/scenario/default-scenario.js";
import { helpKeys, paneHints } from "../../src/ui/format/demo-keys.js";
import { linkMcpClient } from "../integrations/support/in-memory-mcp.js";
import { runWholeCli } from "./cli-harness.js";

/** Help that lists everything there is: modes, tools, keys, and why the defaults differ. */
describe("--help lists everything there is", () => {
  const help = async (...argv: string[]) => {
    const result = await runWholeCli([...argv, "--help"]);
    expect(result.exitCode).toBe(0);
    return result.stdout;
  };

  it("names every coordination mode, group-chat included, under Start here", async () => {
    const text = await help();
    const startHere = text.slice(text.indexOf("Start here:"));
    for (const mode of runModes) expect(startHere).toMatch(new RegExp(`^ +${mode} +\\S`, "m"));
    expect(startHere).toContain("$ shared-ctx demo");
  });

  it("offers every mode to run --mode, with what it is", async () => {
    const text = (await help("run")).replace(/\s+/g, " ");
    for (const mode of runModes) expect(text).toMatch(new RegExp(`${mode} \\(`));
  });

  it("lists in mcp --help every tool the MCP server registers", async () => {
    const store = new EmbeddedStore({ path: ":memory:" });
    const session = await openSharedContextMcpServer({ store, subjectId: "s", agentId: "a" });
    const client = await linkMcpClient(session, "help-check");
    try {
      const { tools } = await client.listTools();
      const text = (await help("mcp")).replace(/\s+/g, " ");
      expect(tools.length).toBeGreaterThanOrEqual(9);
      for (const tool of tools) expect(text).toContain(tool.name);
    } finally {
      await client.close();
      await session.close();
      await store.close();
    }
  });

  it("lists every key of the demo (c included) as its ? overlay does, and every hint's key", async () => {
    const text = await help("demo");
    for (const [keys, action] of helpKeys) expect(text).toContain(`${keys.padEnd(11)}${action}`);
    const helped = helpKeys.flatMap(([keys]) => keys.split(/\s+/));
    for (const [key] of paneHints) expect(helped).toContain(key);
    expect(helped).toContain("c");
  });

  it("says why run and demo open on different scenarios", async () => {
    const run = (await help("run")).replace(/\s+/g, " ");
    const demo = (await help("demo")).replace(/\s+/g, " ");
    expect(defaultScenarioName).not.toBe(defaultDemoScenario["group-chat"]);
    expect(run).toContain(`(default: ${defaultScenarioName}: a decision made before the build`);
    expect(run).toContain(`\`demo\` opens on ${defaultDemoScenario["group-chat"]}:`);
    expect(demo).toContain(
      `(default: ${defaultDemoScenario["group-chat"]}: the coordination restarts before a late joiner`,
    );
    expect(demo).toContain(`with --baseline broadcast, ${defaultDemoScenario.broadcast}`);
    expect(demo).toContain(`${defaultDemoScenario.naive}, \`run\`'s default`);
  });
});
