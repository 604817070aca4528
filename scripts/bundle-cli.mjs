#!/usr/bin/env node
// Start-up (issue 12): run after `tsc` by `npm run build`.
//
// Loading ~1,000 small ES modules is most of the CLI's start-up: Ink 6 alone loads about 600 (its
// `import { throttle } from "es-toolkit/compat"` loads 415), the MCP SDK with zod another ~170,
// ~450 ms and ~150 ms of CPU on the 2-core machine this is developed on. Node 20 has no compile
// cache, so the CLI is bundled: dist/cli/main.js (what bin/shared-ctx.js loads) becomes an esbuild
// bundle of the CLI, the code it uses and its packages, and each `await import()` a command makes
// becomes a chunk loaded when that command runs — `--help` still loads no command's code.
//
// Left out, loaded from node_modules or dist/ as usual: packages that find their files beside
// themselves (loro-crdt's WebAssembly, pg) and dist/bench (it starts its own processes from its
// own files). React is bundled (one copy, shared by Ink and our components) in
// its production build: the development build of react-reconciler alone is 690 kB that every demo
// start compiled, and its extra checks slowed the first frame (~40 ms; a CLI user never sees React's
// development warnings anyway). Yoga (Ink's layout) decodes its inlined WebAssembly without
// `fetch`: calling Node's `fetch` on the data: URL loads undici first (~35 ms). better-sqlite3's
// JavaScript is bundled (a dozen CommonJS files less to resolve and load: ~8 ms of `runs`), and the
// store names its compiled addon by path (store-core.ts). string-width is put behind a fast path
// and loaded on first use (~25 ms of the demo's first frame; see fast-string-width.ts). The library
// (dist/index.js) is tsc's output, untouched. Without esbuild (an install without dev
// dependencies) dist/ is left as tsc wrote it: slower to start, the same code.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const distDirectory = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const cliDirectory = resolve(distDirectory, "cli");
const benchDirectory = resolve(distDirectory, "bench");
const entryPoint = resolve(cliDirectory, "main.js");
const hookEntryPoint = resolve(cliDirectory, "hook-main.js");
const chunkPrefix = "bundle-";

let esbuild;
try {
  esbuild = await import("esbuild");
} catch {
  process.stderr.write(
    "bundle-cli: esbuild is not installed; dist/cli is left unbundled (slower start-up)\n",
  );
  process.exit(0);
}

// Run twice without tsc in between: main.js is a bundle already, nothing to do.
if (readFileSync(entryPoint, "utf8").includes("__bundleRequire")) {
  process.stdout.write("bundle-cli: dist/cli is bundled already\n");
  process.exit(0);
}
// Chunks of an earlier build: their names carry a content hash, so they would pile up.
for (const name of readdirSync(cliDirectory)) {
  if (name.startsWith(chunkPrefix)) rmSync(resolve(cliDirectory, name));
}

/** React's packages pick their build from NODE_ENV at run time; in the CLI bundle it is production. */
const reactPackage = /[/\\]node_modules[/\\](react|react-reconciler|scheduler)[/\\].*\.js$/;
/** Yoga's Emscripten loader, whose WebAssembly is inlined as a data: URL. */
const yogaLoader = /[/\\]node_modules[/\\]yoga-layout[/\\]dist[/\\]binaries[/\\][^/\\]*\.js$/;

/** Reads `path` and replaces every `search` in it; fails the build when there is none to replace. */
function rewrite(path, search, replacement) {
  const source = readFileSync(path, "utf8");
  if (!source.includes(search)) {
    throw new Error(`bundle-cli: ${search} not found in ${path} (did the package change?)`);
  }
  return { contents: source.replaceAll(search, replacement), loader: "js" };
}

/** The fast path's rule for each string-width major Ink's packages use (see fast-string-width.ts). */
const stringWidthRules = new Map([
  [7, "delegate"],
  [8, "measure"],
]);
const fastStringWidthModule = resolve(distDirectory, "ui", "layout", "fast-string-width.js");
/** The CLI's width arithmetic, which loads the width libraries on first need with `require`. */
const textWidthModule = resolve(distDirectory, "ui", "format", "text-width.js");
/** Marks the plugin's own resolution of the real string-width, so it does not redirect itself. */
const realStringWidth = Symbol("real string-width");

const plugin = {
  name: "shared-ctx-cli",
  setup(build) {
    build.onLoad({ filter: reactPackage }, (args) => {
      const source = readFileSync(args.path, "utf8");
      return { contents: source.replaceAll("process.env.NODE_ENV", '"production"'), loader: "js" };
    });
    // The loader takes `fetch` when it is a function: make it see none and decode the base64 itself.
    build.onLoad({ filter: yogaLoader }, (args) =>
      rewrite(args.path, "typeof fetch", "typeof undefined"),
    );
    // Each string-width copy is put behind fastStringWidth and loaded on first use: required, not
    // imported, so esbuild evaluates the copy (its Intl.Segmenter and emoji classes) only then.
    build.onResolve({ filter: /^string-width$/ }, async (args) => {
      if (args.pluginData === realStringWidth) return undefined;
      const real = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: realStringWidth,
      });
      if (real.errors.length > 0) return { errors: real.errors };
      const manifest = JSON.parse(
        readFileSync(resolve(dirname(real.path), "package.json"), "utf8"),
      );
      const rule = stringWidthRules.get(Number.parseInt(manifest.version, 10));
      if (rule === undefined) {
        throw new Error(
          `bundle-cli: string-width ${manifest.version} has no fast-path rule (${real.path}): check it against test/ui/layout/fast-string-width.test.ts and add one`,
        );
      }
      return { path: real.path, namespace: "fast-string-width", pluginData: rule };
    });
    build.onLoad({ filter: /.*/, namespace: "fast-string-width" }, (args) => ({
      contents: [
        `import stripAnsi from "strip-ansi";`,
        `import { eastAsianWidth } from "get-east-asian-width";`,
        `import { fastStringWidth } from ${JSON.stringify(fastStringWidthModule)};`,
        "export default fastStringWidth({",
        `  full: () => require(${JSON.stringify(args.path)}).default,`,
        "  stripAnsi,",
        "  eastAsianWidth,",
        `  lonePictographs: ${JSON.stringify(args.pluginData)},`,
        "});",
      ].join("\n"),
      // strip-ansi and get-east-asian-width as that copy of string-width resolves them.
      resolveDir: dirname(args.path),
      loader: "js",
    }));
    // Its `require` calls become the bundle's, so they reach the bundled copies (string-width
    // behind its fast path) instead of loading a second, unbundled set from node_modules.
    build.onLoad({ filter: /[/\\]ui[/\\]format[/\\]text-width\.js$/ }, (args) =>
      args.path === textWidthModule
        ? rewrite(args.path, "const require = createRequire(import.meta.url);", "")
        : undefined,
    );
    // dist/bench stays tsc's output, imported relative to the bundle (which lives in dist/cli).
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = resolve(args.resolveDir, args.path);
      if (!target.startsWith(`${benchDirectory}${sep}`)) return undefined;
      return { path: relative(cliDirectory, target).split(sep).join("/"), external: true };
    });
    // Ink imports it only for React DevTools (DEV=true), an optional peer that is not installed.
    build.onResolve({ filter: /^react-devtools-core$/ }, () => ({
      path: "react-devtools-core",
      namespace: "absent",
    }));
    build.onLoad({ filter: /.*/, namespace: "absent" }, () => ({
      contents: "export default {};",
      loader: "js",
    }));
  },
};

/** What both bundles share: ESM for Node 20, the packages left out, the plugin, `require`. */
const common = {
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["loro-crdt", "pg", "pg-native"],
  plugins: [plugin],
  // Bundled CommonJS (react-reconciler, ajv, dotenv, …) calls require(): give it Node's.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  logLevel: "warning",
};

const started = performance.now();
await esbuild.build({
  ...common,
  entryPoints: [entryPoint],
  outdir: cliDirectory,
  allowOverwrite: true,
  chunkNames: `${chunkPrefix}[name]-[hash]`,
});
// The edit hooks' fast path (hook-main.ts, issue 31) is one file: every module the hook always
// runs (the store, the edit policy) in it, and no chunk shared with main.js, which would carry what
// other commands use. Nineteen chunks cost ~20 ms more CPU per call than one file (measured with
// `bench startup`). What the hook loads only sometimes stays out, loaded from dist/ as tsc wrote it
// when used: the Postgres and Statewave stores (~110 kB that an embedded-store hook never needs to
// parse) and the shared state (Loro), needed only when two sessions' edits collide.
const hookDeferred = new Set(
  [
    ["context", "postgres", "postgres-store.js"],
    ["context", "statewave", "statewave-store.js"],
    ["crdt", "shared-state.js"],
  ].map((parts) => resolve(distDirectory, ...parts)),
);
await esbuild.build({
  ...common,
  entryPoints: [hookEntryPoint],
  outdir: cliDirectory,
  allowOverwrite: true,
  splitting: false,
  plugins: [
    plugin,
    {
      name: "shared-ctx-hook-deferred",
      setup(build) {
        build.onResolve({ filter: /^\.\.?\// }, (args) => {
          const target = resolve(args.resolveDir, args.path);
          if (!hookDeferred.has(target)) return undefined;
          return {
            path: `./${relative(cliDirectory, target).split(sep).join("/")}`,
            external: true,
          };
        });
      },
    },
  ],
});
process.stdout.write(
  `bundle-cli: dist/cli/main.js and hook-main.js bundled in ${Math.round(performance.now() - started)} ms\n`,
);
