#!/usr/bin/env node
// The bin stays a few lines: everything lives in dist/cli, built by `npm install` (the prepare script).
let cli;
try {
  cli = await import("../dist/cli/main.js");
} catch (error) {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist")) {
    console.error(
      "shared-ctx is not built yet: run `npm install` (or `npm run build`) in its folder.",
    );
    process.exit(1);
  }
  throw error;
}
process.exitCode = await cli.main(process.argv.slice(2));
