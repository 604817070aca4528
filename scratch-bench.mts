import { Command } from "commander";
import { makeBenchStoreCommand } from "./src/cli/commands/bench-store.js";
const program = new Command("x").addCommand(makeBenchStoreCommand({ stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), signal: new AbortController().signal }));
await program.parseAsync(process.argv.slice(2), { from: "user" });
