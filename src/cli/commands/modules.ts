import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { type HookCommandOptions, hookStoreOptions, resolveHookProject } from "../hook-runtime.js";
import { addHookOptions } from "./hook-options.js";

interface ModulesCommandOptions extends Omit<HookCommandOptions, "agent"> {
  json?: boolean;
  path?: string[];
}

/**
 * `shared-ctx modules [--path FILE…] [--json]`: the project's modules and their globs (from
 * shared-ctx.config.json, package.json's "shared-ctx" section, or the default), or which module
 * each given file belongs to.
 */
export function makeModulesCommand(deps: CliDeps): Command {
  return addHookOptions(
    new Command("modules").description(
      "show the project's modules, the path globs that make them up, and the store and root every command uses here",
    ),
    { agent: false },
  )
    .option("--path <file...>", "show which module each file belongs to")
    .option("--json", "print one JSON document")
    .action(async (options: ModulesCommandOptions) => {
      const { moduleOf } = await import("../../hooks/project-config.js");
      const { projectPath } = await import("../../hooks/edit-hooks.js");
      const { resolve } = await import("node:path");
      const [{ resolveStoreLocation }, { redactDatabaseUrl }] = await Promise.all([
        import("../../context/store-location.js"),
        import("../../context/postgres/database-url.js"),
      ]);
      const setup = resolveHookProject(options, deps);
      const { project, root } = setup;
      const location = resolveStoreLocation(hookStoreOptions(options, deps, setup));
      // The password of a Postgres URL never reaches the output.
      const store = {
        kind: location.kind,
        location:
          location.kind === "embedded"
            ? location.path
            : location.kind === "postgres"
              ? redactDatabaseUrl(location.url)
              : location.url,
      };
      const files = (options.path ?? []).map((file) => {
        const relativePath = projectPath(root, resolve(deps.cwd, file));
        const match =
          relativePath === undefined ? undefined : moduleOf(relativePath, project.modules);
        return {
          path: relativePath ?? file,
          ...(match ? { module: match.module, glob: match.glob } : {}),
        };
      });
      if (options.json) {
        const document = {
          root,
          sharedRoot: setup.storeRoot,
          store: { kind: store.kind, location: store.location },
          subject: setup.subjectId,
          from: project.modulesFrom === "config" ? (project.file ?? "config") : "default",
          modules: project.modules,
          ...(options.path ? { files } : {}),
        };
        deps.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
        return;
      }
      if (options.path) {
        for (const file of files) {
          deps.stdout.write(
            `${file.path}\t${file.module ?? "(no module)"}${file.glob ? `\t${file.glob}` : ""}\n`,
          );
        }
        return;
      }
      const from =
        project.modulesFrom === "config"
          ? `from ${project.file ?? "the configuration"}`
          : "by default: workspace packages and the folders under src/, packages/, apps/ (list them in shared-ctx.config.json to change this)";
      const lines = [
        `Root:    ${root}${setup.storeRoot === root ? "" : ` (a worktree of ${setup.storeRoot})`}`,
        `Store:   ${store.location} (${store.kind})`,
        `Subject: ${setup.subjectId}`,
        `Modules ${from}:`,
      ];
      if (project.modules.length === 0) lines.push("  (none: no file is guarded)");
      const width = Math.max(0, ...project.modules.map((module) => module.name.length));
      for (const module of project.modules) {
        lines.push(`  ${module.name.padEnd(width)}  ${module.globs.join(", ")}`);
      }
      deps.stdout.write(`${lines.join("\n")}\n`);
    });
}
