import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeModulesCommand } from "../../src/cli/commands/modules.js";
import { makeRepository } from "../hooks/hook-harness.js";
import { useTempDir } from "../support/temp-dir.js";
import { runCommand } from "./cli-harness.js";

describe("shared-ctx modules", () => {
  const tempDir = useTempDir("shared-ctx-modules-");

  it("lists the default modules and says where they came from", async () => {
    const root = makeRepository(tempDir(), ["src/billing/a.ts", "src/orders/b.ts"]);
    const run = await runCommand(makeModulesCommand, ["modules", "--root", root]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(
      "by default: workspace packages and the folders under src/, packages/, apps/",
    );
    expect(run.stdout).toContain("  billing  src/billing/**\n  orders   src/orders/**\n");
  });

  it("says which module each file belongs to, as JSON too", async () => {
    const root = makeRepository(tempDir(), ["src/billing/a.ts", "tools/x.ts"], {
      subject: "acme",
      modules: { billing: ["src/billing/**"] },
    });
    const plain = await runCommand(makeModulesCommand, [
      "modules",
      "--root",
      root,
      "--path",
      join(root, "src/billing/a.ts"),
      join(root, "tools/x.ts"),
    ]);
    expect(plain.stdout).toBe(
      "src/billing/a.ts\tbilling\tsrc/billing/**\ntools/x.ts\t(no module)\n",
    );
    const json = await runCommand(
      makeModulesCommand,
      ["modules", "--root", root, "--json", "--path", join(root, "src/billing/a.ts")],
      { env: {} },
    );
    expect(JSON.parse(json.stdout)).toEqual({
      root,
      sharedRoot: root,
      store: { kind: "embedded", location: join(root, ".shared-ctx", "store.db") },
      subject: "acme",
      from: join(root, "shared-ctx.config.json"),
      modules: [{ name: "billing", globs: ["src/billing/**"] }],
      files: [{ path: "src/billing/a.ts", module: "billing", glob: "src/billing/**" }],
    });
  });

  it("refuses an invalid configuration with exit 2, naming the field", async () => {
    const root = makeRepository(tempDir(), [], { modules: { billing: 3 } });
    const run = await runCommand(makeModulesCommand, ["modules", "--root", root]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("modules.billing: expected a glob or a list of globs");
  });
});
