import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root folder. */
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

const staticPattern = /^(?:import|export)\s+(?!type\s)(?:[^;]*?\sfrom\s+)?["']([^"']+)["'];?/gm;
const deferredPattern = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/**
 * The specifiers a module loads: static `import … from` and `export … from` (not `import type`,
 * which is erased), and with `deferred` also `import("…")` calls with a literal specifier.
 */
function importsOf(source: string, deferred: boolean): string[] {
  const patterns = deferred ? [staticPattern, deferredPattern] : [staticPattern];
  return patterns.flatMap((pattern) =>
    [...source.matchAll(pattern)].flatMap((match) => (match[1] === undefined ? [] : [match[1]])),
  );
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

/** Resolves `./x.js` in src to its `.ts` or `.tsx` source. */
function resolveSource(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier).replace(/\.js$/, "");
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`cannot resolve ${specifier} from ${from}`);
}

/**
 * Every package reachable from `entry`, each with the chain of modules that pulls it in (the
 * first chain found). `deferred` follows `import("…")` calls too; `skip` names source files
 * (relative to the repository) not to follow.
 */
export function reachablePackages(
  entry: string,
  options: { deferred: boolean; skip?: ReadonlySet<string> },
): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  const seen = new Set<string>();
  const visit = (file: string, chain: string[]) => {
    const name = relative(repoRoot, file);
    if (seen.has(file) || options.skip?.has(name)) return;
    seen.add(file);
    const here = [...chain, name];
    for (const specifier of importsOf(readFileSync(file, "utf8"), options.deferred)) {
      if (specifier.startsWith(".")) visit(resolveSource(file, specifier), here);
      else if (!specifier.startsWith("node:") && !packages.has(packageName(specifier))) {
        packages.set(packageName(specifier), here);
      }
    }
  };
  visit(entry, []);
  return packages;
}
