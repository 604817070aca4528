#!/usr/bin/env node
// Start-up (issue 12): run after `tsc` by `npm run build`.
//
// Ink 6 loads about 600 modules when imported (its `import { throttle } from "es-toolkit/compat"`
// alone loads 415), ~450 ms of CPU on the 2-core machine this is developed on, most of the demo's
// time to its first frame. Bundled into one file, the same code loads in ~130 ms.
//
// So each Ink entry point the CLI imports lazily (dist/ui/render-*.js) is replaced by an esbuild
// bundle of itself, the rest of dist/ui and the packages they use. React stays external: Ink's
// reconciler and our components must share one React. Modules outside dist/ui (scenario, context,
// errors, …) stay imports of the files tsc wrote, so no class or state exists twice. Without
// esbuild (an install without dev dependencies) dist/ is left as tsc wrote it: slower, same code.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const uiDirectory = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist", "ui");
const chunkPrefix = "bundle-";

let esbuild;
try {
  esbuild = await import("esbuild");
} catch {
  process.stderr.write(
    "bundle-ui: esbuild is not installed; dist/ui is left unbundled (slower start-up)\n",
  );
  process.exit(0);
}

const entryPoints = readdirSync(uiDirectory)
  .filter((name) => /^render-.*\.js$/.test(name))
  .map((name) => resolve(uiDirectory, name));
// Run twice without tsc in between: the entry points are bundles already, nothing to do.
if (entryPoints.every((path) => readFileSync(path, "utf8").includes("__bundleRequire"))) {
  process.stdout.write("bundle-ui: dist/ui is bundled already\n");
  process.exit(0);
}
// Chunks of an earlier build: their names carry a content hash, so they would pile up.
for (const name of readdirSync(uiDirectory)) {
  if (name.startsWith(chunkPrefix)) rmSync(resolve(uiDirectory, name));
}

/** Relative imports that leave dist/ui stay imports, relative to the bundle (also in dist/ui). */
const keepOutsideUi = {
  name: "keep-outside-ui",
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = resolve(args.resolveDir, args.path);
      if (
        target.startsWith(`${uiDirectory}${sep}`) ||
        target.includes(`${sep}node_modules${sep}`)
      ) {
        return undefined;
      }
      const path = relative(uiDirectory, target).split(sep).join("/");
      return { path: path.startsWith(".") ? path : `./${path}`, external: true };
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

const started = performance.now();
await esbuild.build({
  entryPoints,
  outdir: uiDirectory,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  chunkNames: `${chunkPrefix}[name]-[hash]`,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["react", "react/*"],
  plugins: [keepOutsideUi],
  // Bundled CommonJS (react-reconciler, scheduler) calls require("react"): give it Node's.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  logLevel: "warning",
});
process.stdout.write(
  `bundle-ui: ${entryPoints.map((path) => relative(uiDirectory, path)).join(", ")} bundled in ${Math.round(performance.now() - started)} ms\n`,
);
