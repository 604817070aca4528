#!/usr/bin/env node
// CommonJS for `require("shared-ctx")` and `require("shared-ctx/langgraph")` (issue 28), run after
// `tsc` by `npm run build`.
//
// Each file of the library tsc wrote (dist/**/*.js, less the CLI, the UI and the benches, which are
// ESM programs, not library code) gets a CommonJS twin beside it (x.js → x.cjs), its relative
// imports pointing at the twins. One file per file, not one bundle per entry: a program that
// requires both entries then shares one copy of each class (`instanceof Disputed` holds across
// them), and the `.cjs` files stay where the `.js` ones are, so `import.meta.url`, which the
// scenario loader and the embedded store resolve paths against, names the same folder
// (`pathToFileURL(__filename)` in CommonJS). Packages stay `require`d from node_modules (each ships
// CommonJS). Without esbuild (an install without dev dependencies) this step is skipped and only
// `import` works.
//
// Each declaration file beside them gets a twin too (x.d.ts → x.d.cts, its relative imports
// pointing at the `.cjs` twins), so the `exports` map's `require` condition has types of its own:
// TypeScript reads a `.d.ts` of this `"type": "module"` package as ESM, which a CommonJS consumer
// under `moduleResolution: node16/nodenext` may not `require` (TS1479).
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const distDirectory = resolve(fileURLToPath(new URL("..", import.meta.url)), "dist");
/** Programs, not library code: never required. */
const skipped = new Set(["cli", "ui", "bench"]);

let esbuild;
try {
  esbuild = await import("esbuild");
} catch {
  process.stderr.write("build-library-cjs: esbuild is not installed; no CommonJS build\n");
  process.exit(0);
}

function libraryFiles(directory, extension = ".js") {
  const files = [];
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) {
      if (directory === distDirectory && skipped.has(name)) continue;
      files.push(...libraryFiles(path, extension));
    } else if (name.endsWith(extension)) {
      files.push(path);
    }
  }
  return files;
}

const entryPoints = libraryFiles(distDirectory);
const started = performance.now();
await esbuild.build({
  entryPoints,
  outdir: distDirectory,
  outbase: distDirectory,
  outExtension: { ".js": ".cjs" },
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  // Every import stays an import: relative ones to the twin, packages as they are.
  plugins: [
    {
      name: "shared-ctx-cjs-twins",
      setup(build) {
        build.onResolve({ filter: /.*/ }, (args) => {
          if (args.kind === "entry-point") return undefined;
          if (args.path.startsWith(".")) {
            return { path: args.path.replace(/\.js$/, ".cjs"), external: true };
          }
          return { path: args.path, external: true };
        });
      },
    },
  ],
  define: { "import.meta.url": "__sharedCtxModuleUrl" },
  banner: {
    js: 'const __sharedCtxModuleUrl = require("node:url").pathToFileURL(__filename).href;',
  },
  logLevel: "warning",
});
// `from "./x.js"`, `import("./x.js")` and `export … from "./x.js"`: relative specifiers only.
const relativeJs = /((?:from|import)\s*\(?\s*)(["'])(\.{1,2}\/[^"']*?)\.js\2/g;
const declarations = libraryFiles(distDirectory, ".d.ts");
for (const file of declarations) {
  const text = readFileSync(file, "utf8").replace(relativeJs, "$1$2$3.cjs$2");
  writeFileSync(file.replace(/\.d\.ts$/, ".d.cts"), text);
}
const count = entryPoints.length;
const where = relative(process.cwd(), distDirectory).split(sep).join("/") || ".";
process.stdout.write(
  `build-library-cjs: ${count} CommonJS twins and ${declarations.length} declaration twins in ${where}/ in ${Math.round(performance.now() - started)} ms\n`,
);
