import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";

/**
 * Paths as the file system resolves them. An edit through a symlink writes the file it points to,
 * and a project reached through a symlinked folder has two names for every file: matched by its
 * given path alone, an edit through `src/new/link.ts → ../legacy-billing/invoice.ts`, or of
 * `/home/alice/acme/src/…` in a project opened as `/work/acme` (a link to it), missed its module.
 */

/**
 * `path` with every symlink resolved, also for a file that does not exist yet (a Write creating
 * it): the nearest existing folder above it is resolved, and the rest appended as given.
 */
export function realPathOf(path: string): string {
  let existing = path;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = realpathSync(existing);
      return rest.length > 0 ? join(real, ...rest.reverse()) : real;
    } catch {
      // Missing (or unreadable): try the folder above, keeping the name for the end.
      const parent = dirname(existing);
      if (parent === existing) return path;
      rest.push(basename(existing));
      existing = parent;
    }
  }
}

/** A path relative to `root` with `/`, or undefined when it is outside it. */
function inside(root: string, absolutePath: string): string | undefined {
  const path = relative(root, absolutePath);
  if (path === "" || path.startsWith("..") || isAbsolute(path)) return undefined;
  return path.split(sep).join("/");
}

/**
 * The project-relative paths under which an edit of `absolutePath` lands in the project at
 * `root`: its real path (through every symlink, the root's too) first, then the path as given
 * when that differs (a module whose folder is itself a link is still matched by its own name).
 * Empty when the file is outside the project by both.
 */
export function projectPathsOf(root: string, absolutePath: string): string[] {
  const realRoot = realPathOf(root);
  const found = [
    inside(realRoot, realPathOf(absolutePath)),
    inside(root, absolutePath),
    inside(realRoot, absolutePath),
  ];
  return [...new Set(found.filter((path): path is string => path !== undefined))];
}
