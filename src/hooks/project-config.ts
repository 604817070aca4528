import { ProjectConfigError } from "./errors/project-config-error.js";
import { globToRegExp, normalizeSlashes } from "./glob-match.js";

/**
 * The project file that maps module names to path globs and tunes the edit hooks:
 * `shared-ctx.config.json` at the project root, or a `"shared-ctx"` section of package.json.
 *
 * ```json
 * {
 *   "subject": "my-repo",
 *   "modules": { "legacy-billing": ["src/legacy-billing/**"], "web": ["apps/web/**"] },
 *   "hooks": { "onConflict": "deny", "whenStoreDown": "allow", "claimMinutes": 15 }
 * }
 * ```
 * Pure: reading files is the caller's (see `load-project.ts`).
 */

/** The configuration file's name, looked for at the project root. */
export const configFileName = "shared-ctx.config.json";
/** The package.json section read when there is no {@link configFileName}. */
export const packageJsonSection = "shared-ctx";

/** One module and the path globs (relative to the project root) that make it up. */
export interface ModuleDefinition {
  readonly name: string;
  readonly globs: readonly string[];
}

/** How the edit hooks behave (the `hooks` section). */
export interface HookSettings {
  /**
   * What an edit that conflicts with the shared context gets (a retired module, another
   * session's live claim, an open dispute): refused, or put to the person at the keyboard.
   * @default "deny"
   */
  readonly onConflict: "deny" | "ask";
  /**
   * What an edit gets when the store cannot be reached: let through with a visible warning in
   * the agent's context and the person's transcript, or refused.
   * @default "allow"
   */
  readonly whenStoreDown: "allow" | "deny";
  /** How long an edit holds its module for the session that made it. @default 15 */
  readonly claimMinutes: number;
  /** The store's time budget per hook call, after which the store counts as down. @default 2000 */
  readonly timeoutMs: number;
}

/** The defaults of {@link HookSettings}. */
export const defaultHookSettings: HookSettings = {
  onConflict: "deny",
  whenStoreDown: "allow",
  claimMinutes: 15,
  timeoutMs: 2000,
};

/** A project's configuration, with where each part came from. */
export interface ProjectConfig {
  /** The shared subject, when the file names one. */
  readonly subject?: string;
  readonly modules: readonly ModuleDefinition[];
  /** `"config"` when a file lists the modules, `"default"` when they were derived from the folders. */
  readonly modulesFrom: "config" | "default";
  readonly hooks: HookSettings;
  /** The file the configuration was read from; undefined when there is none. */
  readonly file?: string;
}

/** Module names: what a decision's target can name (`legacy-billing`, `@acme/web`). */
const moduleNamePattern = /^[@A-Za-z0-9][\w.@/-]{0,127}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Validates the configuration object read from `file` (the whole of shared-ctx.config.json, or
 * package.json's section). Unknown top-level keys are refused so a typo is never silently ignored.
 * @throws ProjectConfigError naming the file and the field
 */
export function parseProjectConfig(
  raw: unknown,
  file: string,
): Omit<ProjectConfig, "modules" | "modulesFrom"> & { modules?: ModuleDefinition[] } {
  if (!isRecord(raw)) throw new ProjectConfigError(file, "", "expected a JSON object");
  for (const key of Object.keys(raw)) {
    if (!["$schema", "subject", "modules", "hooks"].includes(key)) {
      throw new ProjectConfigError(
        file,
        key,
        "unknown setting (expected subject, modules or hooks)",
      );
    }
  }
  let subject: string | undefined;
  if (raw.subject !== undefined) {
    if (typeof raw.subject !== "string" || raw.subject.trim() === "" || raw.subject.length > 256) {
      throw new ProjectConfigError(file, "subject", "expected a string of 1..256 characters");
    }
    subject = raw.subject.trim();
  }
  let modules: ModuleDefinition[] | undefined;
  if (raw.modules !== undefined) {
    if (!isRecord(raw.modules)) {
      throw new ProjectConfigError(
        file,
        "modules",
        'expected an object of module name to globs, e.g. { "billing": ["src/billing/**"] }',
      );
    }
    modules = Object.entries(raw.modules).map(([name, globs]) => {
      if (!moduleNamePattern.test(name)) {
        throw new ProjectConfigError(
          file,
          `modules.${name}`,
          "a module name is 1..128 letters, digits, '.', '_', '-', '@' or '/'",
        );
      }
      const list = typeof globs === "string" ? [globs] : globs;
      if (!Array.isArray(list) || list.length === 0) {
        throw new ProjectConfigError(file, `modules.${name}`, "expected a glob or a list of globs");
      }
      return {
        name,
        globs: list.map((glob, index) => {
          if (typeof glob !== "string" || normalizeSlashes(glob.trim()) === "") {
            throw new ProjectConfigError(
              file,
              `modules.${name}[${index}]`,
              "expected a non-empty glob string",
            );
          }
          if (
            glob.startsWith("/") ||
            /^[A-Za-z]:[\\/]/.test(glob) ||
            glob.split("/").includes("..")
          ) {
            throw new ProjectConfigError(
              file,
              `modules.${name}[${index}]`,
              "globs are relative to the project root (no leading /, no ..)",
            );
          }
          return glob.trim();
        }),
      };
    });
  }
  return {
    ...(subject !== undefined ? { subject } : {}),
    ...(modules !== undefined ? { modules } : {}),
    hooks: parseHookSettings(raw.hooks, file),
    file,
  };
}

function parseHookSettings(raw: unknown, file: string): HookSettings {
  if (raw === undefined) return defaultHookSettings;
  if (!isRecord(raw)) throw new ProjectConfigError(file, "hooks", "expected an object");
  const settings = { ...defaultHookSettings };
  for (const [key, value] of Object.entries(raw)) {
    switch (key) {
      case "onConflict":
        if (value !== "deny" && value !== "ask") {
          throw new ProjectConfigError(file, "hooks.onConflict", 'expected "deny" or "ask"');
        }
        settings.onConflict = value;
        break;
      case "whenStoreDown":
        if (value !== "allow" && value !== "deny") {
          throw new ProjectConfigError(file, "hooks.whenStoreDown", 'expected "allow" or "deny"');
        }
        settings.whenStoreDown = value;
        break;
      case "claimMinutes":
        if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > 24 * 60) {
          throw new ProjectConfigError(
            file,
            "hooks.claimMinutes",
            "expected a number of minutes above 0, at most 1440",
          );
        }
        settings.claimMinutes = value;
        break;
      case "timeoutMs":
        if (!Number.isInteger(value) || (value as number) < 50 || (value as number) > 60_000) {
          throw new ProjectConfigError(
            file,
            "hooks.timeoutMs",
            "expected whole milliseconds, 50..60000",
          );
        }
        settings.timeoutMs = value as number;
        break;
      default:
        throw new ProjectConfigError(
          file,
          `hooks.${key}`,
          "unknown setting (expected onConflict, whenStoreDown, claimMinutes or timeoutMs)",
        );
    }
  }
  return settings;
}

/** Where a path was found in the modules: the module and the glob that matched. */
export interface ModuleMatch {
  readonly module: string;
  readonly glob: string;
}

/** How specific a glob is: the number of leading path segments without a wildcard. */
function specificity(glob: string): number {
  let count = 0;
  for (const segment of normalizeSlashes(glob).split("/")) {
    if (/[*?[{]/.test(segment)) break;
    count += 1;
  }
  return count;
}

/**
 * The module a project-relative path belongs to: among the globs that match it, the most specific
 * one (most literal leading segments), ties going to the module listed first. So
 * `legacy-billing: src/billing/legacy/**` wins over `billing: src/billing/**` in either order.
 */
export function moduleOf(
  relativePath: string,
  modules: readonly ModuleDefinition[],
): ModuleMatch | undefined {
  const path = normalizeSlashes(relativePath);
  let best: (ModuleMatch & { score: number }) | undefined;
  for (const module of modules) {
    for (const glob of module.globs) {
      if (!globToRegExp(glob).test(path)) continue;
      const score = specificity(glob);
      if (best === undefined || score > best.score) best = { module: module.name, glob, score };
    }
  }
  return best ? { module: best.module, glob: best.glob } : undefined;
}
