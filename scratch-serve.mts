import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runStoreBench, formatStoreBenchTable } from "./src/bench/store-bench.js";
const r = await runStoreBench({ dir: mkdtempSync(join(tmpdir(), "sb-")), sizes: [1000], ingestCount: 500, serveSeconds: 3 });
console.log(formatStoreBenchTable(r));
