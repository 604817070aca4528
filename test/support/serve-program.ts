import { Command } from "commander";
import type { CliDeps } from "../../src/cli/cli-deps.js";
import { makeServeCommand } from "../../src/cli/commands/serve.js";
import { capturedCliDeps } from "./cli-deps.js";

/** CLI deps that keep what the command prints, read back with `out()` and `err()`. */
export function captureDeps(
  env: Record<string, string>,
  cwd: string,
  signal: AbortSignal,
): { deps: CliDeps; out: () => string; err: () => string } {
  const { deps, stdout, stderr } = capturedCliDeps({ env, cwd, signal });
  return { deps, out: stdout, err: stderr };
}

/**
 * A `shared-ctx` program holding only `serve`, throwing instead of exiting, its help and errors
 * written to `deps`.
 */
export function serveProgram(deps: CliDeps): Command {
  const output = {
    writeOut: (text: string) => deps.stdout.write(text),
    writeErr: (text: string) => deps.stderr.write(text),
  };
  // addCommand() does not pass output settings down, so the subcommand gets them itself.
  const serve = makeServeCommand(deps).exitOverride().configureOutput(output);
  return new Command("shared-ctx").exitOverride().configureOutput(output).addCommand(serve);
}

/** Polls `read()` until `pattern` matches it (a server prints its URL once it listens). */
export async function waitForText(read: () => string, pattern: RegExp): Promise<RegExpExecArray> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const match = pattern.exec(read());
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never printed ${pattern}: ${read()}`);
}
