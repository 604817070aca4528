import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ProjectConfigError } from "./errors/project-config-error.js";
import {
  configFileName,
  defaultHookSettings,
  type ModuleDefinition,
  type ProjectConfig,
  packageJsonSection,
  parseProjectConfig,
} from "./project-config.js";
import { findProjectRoots } from "./project-root.js";

/** The file system as the project loader uses it; tests pass an in-memory one. */
export interface ProjectFileSystem {
  /** A file's text, or undefined when there is no such file. */
  readFile(path: string): string | undefined;
  /** The names of the folders directly inside `path` (none when it is missing). */
  listDirectories(path: string): string[];
  exists(path: string): boolean;
}

/** The real file system. */
export const nodeProjectFileSystem: ProjectFileSystem = {
  readFile(path) {
    try {
      return readFileSync(path, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // EISDIR: `.git` is a folder in a main checkout, a file in a linked worktree.
      if (code === "ENOENT" || code === "EISDIR" || code === "ENOTDIR") return undefined;
      throw error;
    }
  },
  listDirectories(path) {
    try {
      return readdirSync(path, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort();
    } catch {
      return [];
    }
  },
  exists: existsSync,
};

/** Folders whose sub-folders are modules when no configuration lists them. */
const moduleParents = ["src", "packages", "apps"] as const;

/**
 * The project root for a path (see `findProjectRoots`): the nearest folder at or above `start`
 * holding shared-ctx.config.json, else the nearest holding .git; `start` itself when there is none.
 */
export function findProjectRoot(
  start: string,
  fs: ProjectFileSystem = nodeProjectFileSystem,
): string {
  return findProjectRoots(start, fs).root;
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ProjectConfigError(path, "", `not valid JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
}

/**
 * Reads the project's configuration: shared-ctx.config.json at `root`, else the `shared-ctx`
 * section of package.json, else the defaults. Modules the file does not list are derived from the
 * folders (see {@link defaultModules}).
 * @throws ProjectConfigError naming the file and the field
 */
export function loadProject(
  root: string,
  fs: ProjectFileSystem = nodeProjectFileSystem,
): ProjectConfig {
  const configPath = join(root, configFileName);
  const configText = fs.readFile(configPath);
  const packagePath = join(root, "package.json");
  const packageText = fs.readFile(packagePath);
  const manifest = packageText === undefined ? undefined : parseJson(packageText, packagePath);
  let parsed: ReturnType<typeof parseProjectConfig> | undefined;
  if (configText !== undefined) {
    parsed = parseProjectConfig(parseJson(configText, configPath), configPath);
  } else if (isRecord(manifest) && manifest[packageJsonSection] !== undefined) {
    parsed = parseProjectConfig(
      manifest[packageJsonSection],
      `${packagePath} "${packageJsonSection}"`,
    );
  }
  if (parsed?.modules !== undefined) {
    return { ...parsed, modules: parsed.modules, modulesFrom: "config" };
  }
  return {
    ...(parsed ?? { hooks: defaultHookSettings }),
    modules: defaultModules(root, manifest, fs),
    modulesFrom: "default",
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** package.json `workspaces`: an array, or `{ packages: [...] }` (Yarn's form). */
function workspacePatterns(manifest: unknown): string[] {
  if (!isRecord(manifest)) return [];
  const workspaces = manifest.workspaces;
  const list = isRecord(workspaces) ? workspaces.packages : workspaces;
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === "string") : [];
}

/**
 * The modules of a project without a configured list: each workspace package (named as its
 * package.json says), then each folder directly under src/, packages/ and apps/ that is not a
 * workspace already (named after the folder; `packages/x` when two share a name).
 */
export function defaultModules(
  root: string,
  manifest: unknown,
  fs: ProjectFileSystem = nodeProjectFileSystem,
): ModuleDefinition[] {
  const byDir = new Map<string, string | undefined>();
  for (const pattern of workspacePatterns(manifest)) {
    const clean = pattern.replace(/^\.\//, "").replace(/\/$/, "");
    if (clean.startsWith("!")) continue;
    const wildcard = clean.search(/[*?[{]/);
    if (wildcard < 0) {
      byDir.set(clean, undefined);
      continue;
    }
    // `packages/*` and `packages/**` both mean the folders under packages/.
    const parent = clean.slice(0, wildcard).replace(/\/$/, "");
    for (const name of fs.listDirectories(join(root, parent))) {
      if (!name.startsWith(".") && name !== "node_modules")
        byDir.set(`${parent}/${name}`, undefined);
    }
  }
  for (const dir of byDir.keys()) {
    const text = fs.readFile(join(root, dir, "package.json"));
    if (text === undefined) continue;
    try {
      const name = (JSON.parse(text) as { name?: unknown }).name;
      if (typeof name === "string" && name) byDir.set(dir, name);
    } catch {
      // A broken workspace manifest is npm's to report; the folder name still names the module.
    }
  }
  for (const parent of moduleParents) {
    for (const name of fs.listDirectories(join(root, parent))) {
      if (name.startsWith(".") || name === "node_modules") continue;
      const dir = `${parent}/${name}`;
      if (!byDir.has(dir)) byDir.set(dir, undefined);
    }
  }
  const modules: ModuleDefinition[] = [];
  const taken = new Set<string>();
  for (const [dir, packageName] of byDir) {
    const base = packageName ?? dir.slice(dir.lastIndexOf("/") + 1);
    const name = taken.has(base) ? dir : base;
    taken.add(name);
    modules.push({ name, globs: [`${dir}/**`] });
  }
  return modules;
}
