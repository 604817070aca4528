import { describe, expect, it } from "vitest";
import { ProjectConfigError } from "../../src/hooks/errors/project-config-error.js";
import {
  defaultModules,
  findProjectRoot,
  loadProject,
  type ProjectFileSystem,
} from "../../src/hooks/load-project.js";
import {
  defaultHookSettings,
  moduleOf,
  parseProjectConfig,
} from "../../src/hooks/project-config.js";

/** An in-memory project: file paths to contents; folders are implied by the paths. */
function memoryFs(files: Record<string, string>): ProjectFileSystem {
  const paths = Object.keys(files);
  return {
    readFile: (path) => (Object.hasOwn(files, path) ? files[path] : undefined),
    listDirectories: (path) =>
      [
        ...new Set(
          paths
            .filter((file) => file.startsWith(`${path}/`))
            .map((file) => file.slice(path.length + 1).split("/"))
            .filter((parts) => parts.length > 1)
            .map((parts) => parts[0] ?? ""),
        ),
      ].sort(),
    exists: (path) => paths.some((file) => file === path || file.startsWith(`${path}/`)),
  };
}

describe("loadProject", () => {
  it("reads the modules and settings of shared-ctx.config.json", () => {
    const fs = memoryFs({
      "/repo/shared-ctx.config.json": JSON.stringify({
        subject: "acme",
        modules: { billing: ["src/billing/**"], web: "apps/web" },
        hooks: { onConflict: "ask", claimMinutes: 5 },
      }),
    });
    const project = loadProject("/repo", fs);
    expect(project).toMatchObject({
      subject: "acme",
      modulesFrom: "config",
      modules: [
        { name: "billing", globs: ["src/billing/**"] },
        { name: "web", globs: ["apps/web"] },
      ],
      hooks: { ...defaultHookSettings, onConflict: "ask", claimMinutes: 5 },
      file: "/repo/shared-ctx.config.json",
    });
  });

  it("reads package.json's shared-ctx section when there is no config file", () => {
    const fs = memoryFs({
      "/repo/package.json": JSON.stringify({
        name: "x",
        "shared-ctx": { modules: { core: ["lib/**"] } },
      }),
    });
    expect(loadProject("/repo", fs).modules).toEqual([{ name: "core", globs: ["lib/**"] }]);
  });

  it("derives workspace packages, then folders under src/, packages/, apps/ by default", () => {
    const fs = memoryFs({
      "/repo/package.json": JSON.stringify({ workspaces: ["packages/*", "tools/cli"] }),
      "/repo/packages/billing/package.json": JSON.stringify({ name: "@acme/billing" }),
      "/repo/packages/web/index.ts": "",
      "/repo/tools/cli/index.ts": "",
      "/repo/src/orders/a.ts": "",
      "/repo/src/web/a.ts": "",
      "/repo/src/.hidden/a.ts": "",
      "/repo/apps/admin/a.ts": "",
      "/repo/src/top-level-file.ts": "",
    });
    const project = loadProject("/repo", fs);
    expect(project.modulesFrom).toBe("default");
    expect(project.modules).toEqual([
      { name: "@acme/billing", globs: ["packages/billing/**"] },
      { name: "web", globs: ["packages/web/**"] },
      { name: "cli", globs: ["tools/cli/**"] },
      { name: "orders", globs: ["src/orders/**"] },
      // Two folders named web: the second is named by its path.
      { name: "src/web", globs: ["src/web/**"] },
      { name: "admin", globs: ["apps/admin/**"] },
    ]);
  });

  it("has no modules in an empty project", () => {
    expect(defaultModules("/repo", undefined, memoryFs({}))).toEqual([]);
  });

  it("names the file when it is not JSON", () => {
    const fs = memoryFs({ "/repo/shared-ctx.config.json": "{ modules: " });
    expect(() => loadProject("/repo", fs)).toThrow(ProjectConfigError);
    expect(() => loadProject("/repo", fs)).toThrow(
      /\/repo\/shared-ctx\.config\.json: not valid JSON/,
    );
  });
});

describe("parseProjectConfig", () => {
  it.each([
    [{ modul: {} }, "modul: unknown setting"],
    [{ modules: [] }, "modules: expected an object"],
    [{ modules: { billing: [] } }, "modules.billing: expected a glob or a list of globs"],
    [{ modules: { billing: [3] } }, "modules.billing[0]: expected a non-empty glob string"],
    [{ modules: { billing: ["/abs/**"] } }, "modules.billing[0]: globs are relative"],
    [{ modules: { billing: ["../x/**"] } }, "modules.billing[0]: globs are relative"],
    [{ modules: { "bad name!": ["x"] } }, "modules.bad name!: a module name is"],
    [{ hooks: { onConflict: "block" } }, 'hooks.onConflict: expected "deny" or "ask"'],
    [{ hooks: { whenStoreDown: "ignore" } }, 'hooks.whenStoreDown: expected "allow" or "deny"'],
    [{ hooks: { claimMinutes: 0 } }, "hooks.claimMinutes: expected a number of minutes"],
    [{ hooks: { timeoutMs: 1.5 } }, "hooks.timeoutMs: expected whole milliseconds"],
    [{ hooks: { retries: 1 } }, "hooks.retries: unknown setting"],
    [{ subject: "" }, "subject: expected a string of 1..256 characters"],
    [[], "expected a JSON object"],
  ])("refuses %j, naming the field", (raw, message) => {
    expect(() => parseProjectConfig(raw, "cfg.json")).toThrow(message);
  });

  it("never reads a module named like an Object member as inherited", () => {
    const parsed = parseProjectConfig(
      JSON.parse('{"modules":{"constructor":["a/**"]}}'),
      "cfg.json",
    );
    expect(parsed.modules).toEqual([{ name: "constructor", globs: ["a/**"] }]);
  });
});

describe("moduleOf", () => {
  const modules = [
    { name: "billing", globs: ["src/billing/**"] },
    { name: "legacy-billing", globs: ["src/billing/legacy/**"] },
    { name: "docs", globs: ["**/*.md"] },
  ];

  it("picks the most specific glob, whatever the order", () => {
    expect(moduleOf("src/billing/legacy/a.ts", modules)?.module).toBe("legacy-billing");
    expect(moduleOf("src/billing/a.ts", modules)?.module).toBe("billing");
    expect(moduleOf("src/billing/legacy/a.ts", [...modules].reverse())?.module).toBe(
      "legacy-billing",
    );
  });

  it("finds nothing for a file in no module", () => {
    expect(moduleOf("scripts/build.mjs", modules)).toBeUndefined();
  });

  it("says which glob matched", () => {
    expect(moduleOf("README.md", modules)).toEqual({ module: "docs", glob: "**/*.md" });
  });
});

describe("findProjectRoot", () => {
  it("walks up to the folder with shared-ctx.config.json or .git", () => {
    const fs = memoryFs({ "/repo/.git/HEAD": "", "/repo/src/a/b.ts": "" });
    expect(findProjectRoot("/repo/src/a", fs)).toBe("/repo");
  });

  it("stays where it started when nothing marks a root", () => {
    expect(findProjectRoot("/nowhere/deep", memoryFs({}))).toBe("/nowhere/deep");
  });
});
