import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Packages that cost start-up time: only an action handler may load them (`await import`). */
const heavyPackages = [
  "ai",
  "@ai-sdk/openai",
  "@modelcontextprotocol/sdk",
  "hono",
  "@hono/node-server",
  "loro-crdt",
  "better-sqlite3",
  "pg",
  "yaml",
  "zod",
  "ink",
  "react",
  "dotenv",
  "string-width",
  "autocannon",
];

/**
 * The specifiers a module loads when it is loaded: static `import … from` and `export … from`,
 * not `import type` (erased) and not `await import(…)` (deferred).
 */
function staticImports(source: string): string[] {
  const specifiers: string[] = [];
  const pattern = /^(?:import|export)\s+(?!type\s)(?:[^;]*?\sfrom\s+)?["']([^"']+)["'];?/gm;
  for (const match of source.matchAll(pattern)) {
    if (match[1] !== undefined) specifiers.push(match[1]);
  }
  return specifiers;
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

/** Every package loaded at start-up from `entry`, with the chain of modules that loads it. */
function startupPackages(entry: string): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  const seen = new Set<string>();
  const visit = (file: string, chain: string[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    const here = [...chain, relative(repoRoot, file)];
    for (const specifier of staticImports(readFileSync(file, "utf8"))) {
      if (specifier.startsWith(".")) visit(resolveSource(file, specifier), here);
      else if (!specifier.startsWith("node:") && !packages.has(packageName(specifier))) {
        packages.set(packageName(specifier), here);
      }
    }
  };
  visit(entry, []);
  return packages;
}

describe("start-up: what `shared-ctx` loads before a command's action runs", () => {
  const packages = startupPackages(join(repoRoot, "src", "cli", "main.ts"));

  it("loads commander", () => {
    expect(packages.has("commander")).toBe(true);
  });

  it.each(heavyPackages)("does not load %s at module top level", (name) => {
    // The chain says which module to fix: move its import into the action handler.
    expect(packages.get(name)).toBeUndefined();
  });
});
