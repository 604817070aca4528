import { main } from "/work/h-exp/src/cli/main.js";
process.exitCode = await main(process.argv.slice(2));
