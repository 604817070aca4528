import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { makeInitClaudeCodeCommand } from "./init-claude-code.js";
import { makeInitGeminiCliCommand } from "./init-gemini-cli.js";

/**
 * `shared-ctx init <harness>`: sets a coding harness up to use the shared context. One writer per
 * harness, each a subcommand in its own file (init-claude-code.ts, init-gemini-cli.ts; `init claude-code --server` in init-claude-code-server.ts); what they share is in
 * init-files.ts.
 */
export function makeInitCommand(deps: CliDeps): Command {
  return new Command("init")
    .description("set a coding harness up to use the shared context")
    .addCommand(makeInitClaudeCodeCommand(deps))
    .addCommand(makeInitGeminiCliCommand(deps));
}
