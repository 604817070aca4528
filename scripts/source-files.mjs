// The TypeScript sources a script measures, shared by import-graph.mjs and unit-sizes.mjs so
// that both count the same files.
import { readdirSync, statSync } from "node:fs";
import path from "node:path";

/** Every .ts/.tsx file under `folder`, sorted, declaration files left out. */
export function sourceFiles(folder) {
  return readdirSync(folder)
    .sort()
    .flatMap((name) => {
      const full = path.join(folder, name);
      if (statSync(full).isDirectory()) return sourceFiles(full);
      return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [full] : [];
    });
}
