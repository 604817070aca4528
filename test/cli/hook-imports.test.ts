import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The hook runs on every edit: what it loads is its latency. Packages the hook path must never
 * reach, even through an `await import()` it makes: the UI, the AI SDK, the MCP SDK.
 */
const forbidden = [
  "ink",
  "react",
  "ai",
  "@ai-sdk/openai",
  "@modelcontextprotocol/sdk",
  "zod",
  "hono",
];

/**
 * The one deferred load the hook path may make of a heavy module: the shared state (Loro), and
 * only when two sessions' edits collide (`raiseModuleEscalation`).
 */
const collisionOnly = new Set(["src/crdt/shared-state.ts"]);

/** Static imports and `import("…")` calls with a literal specifier (type-only imports are erased). */
function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const patterns = [
    /^(?:import|export)\s+(?!type\s)(?:[^;]*?\sfrom\s+)?["']([^"']+)["'];?/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern))
      if (match[1] !== undefined) specifiers.push(match[1]);
  }
  return specifiers;
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

function resolveSource(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier).replace(/\.js$/, "");
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`cannot resolve ${specifier} from ${from}`);
}

/** Every package reachable from `entry`, statically or through a deferred import, with its chain. */
function reachablePackages(entry: string): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  const seen = new Set<string>();
  const visit = (file: string, chain: string[]) => {
    const name = relative(repoRoot, file);
    if (seen.has(file) || collisionOnly.has(name)) return;
    seen.add(file);
    const here = [...chain, name];
    for (const specifier of importsOf(readFileSync(file, "utf8"))) {
      if (specifier.startsWith(".")) visit(resolveSource(file, specifier), here);
      else if (!specifier.startsWith("node:") && !packages.has(packageName(specifier))) {
        packages.set(packageName(specifier), here);
      }
    }
  };
  visit(entry, []);
  return packages;
}

describe("the hook path (`shared-ctx hook …`, `check`) loads no UI, AI SDK or MCP SDK", () => {
  describe.each(["src/cli/commands/hook.ts", "src/cli/commands/check.ts"])("%s", (entry) => {
    const packages = reachablePackages(join(repoRoot, entry));

    it("reaches the store's driver (it reads the store)", () => {
      expect(packages.has("better-sqlite3")).toBe(true);
    });

    it.each(forbidden)("never reaches %s", (name) => {
      // The chain names the module that pulls it in.
      expect(packages.get(name)).toBeUndefined();
    });
  });
});
