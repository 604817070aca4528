#!/usr/bin/env node
// The bin stays a few lines: everything lives in dist/cli, built by `npm install` (the prepare script).
async function load(name) {
  try {
    return await import(`../dist/cli/${name}`);
  } catch (error) {
    if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist")) {
      console.error(
        "shared-ctx is not built yet: run `npm install` (or `npm run build`) in its folder.",
      );
      process.exit(1);
    }
    throw error;
  }
}
const argv = process.argv.slice(2);
// The edit hooks run before every edit: their own small bundle, without the command table.
let code;
if (argv[0] === "hook" || argv[0] === "check")
  code = await (await load("hook-main.js")).hookMain(argv);
process.exitCode = code ?? (await (await load("main.js")).main(argv));
