import { type Command, Option } from "commander";

/**
 * The store flags a coding agent's commands (`hook`, `check`, `mcp`) word alike: `--store` with
 * Postgres among its kinds, and `--url` (each a fresh `Option`: commander owns what it adds).
 */
export const agentStoreOptions = {
  kind: (): Option =>
    new Option("--store <kind>", "where the shared context lives").choices([
      "embedded",
      "statewave",
      "postgres",
    ]),
  url: (): Option =>
    new Option(
      "--url <url>",
      "Statewave server URL (default: $STATEWAVE_URL or http://localhost:8100)",
    ),
};

/** Adds `--subject`, `--agent`, `--root` and `mcp`'s store flags to `command`. */
export function addHookOptions(command: Command, options: { agent: boolean }): Command {
  command
    .option(
      "--subject <id>",
      "the shared subject (default: shared-ctx.config.json's subject, $SHARED_CTX_SUBJECT, or the repository folder's name, the same from every worktree)",
    )
    .option(
      "--root <dir>",
      "the project root (default: walking up from $CLAUDE_PROJECT_DIR, else the cwd, to the nearest shared-ctx.config.json, else the git checkout)",
    );
  if (options.agent) {
    command.option(
      "--agent <name>",
      "who is editing (default: the hook input's session_id, else $SHARED_CTX_AGENT)",
    );
  }
  return command
    .option(
      "--db <path>",
      "embedded store file, relative to the repository (default: $SHARED_CTX_DB or <repository>/.shared-ctx/store.db, one for every worktree: the main checkout's)",
    )
    .addOption(agentStoreOptions.kind())
    .option(
      "--database-url <url>",
      "Postgres URL, with --store postgres (default: $SHARED_CTX_DATABASE_URL)",
    )
    .addOption(agentStoreOptions.url());
}
