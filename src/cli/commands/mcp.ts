import { Writable } from "node:stream";
import { Command } from "commander";
import { mcpToolNames } from "../../integrations/tool-names.js";
import type { CliDeps, OutputStream } from "../cli-deps.js";
import { FatalError } from "../fatal-error.js";
import { packageVersion } from "../version.js";
import { agentStoreOptions } from "./hook-options.js";

interface McpCommandOptions {
  subject: string;
  agent: string;
  project?: string;
  db?: string;
  store?: "embedded" | "statewave" | "postgres";
  url?: string;
  databaseUrl?: string;
}

/**
 * `shared-ctx mcp --subject ID [--agent NAME] [--db PATH | --store statewave]`: an MCP server over
 * stdio for one agent. Stdout carries the protocol and nothing else; messages go to stderr.
 */
export function makeMcpCommand(deps: CliDeps): Command {
  return new Command("mcp")
    .description(
      "serve shared context to one coding agent (Claude Code, Cursor, ...) over MCP stdio",
    )
    .requiredOption("--subject <id>", "the shared subject (one per project or task)")
    .option(
      "--agent <name>",
      "who this agent is: decisions and state writes are attributed to it",
      deps.env.SHARED_CTX_AGENT ?? "agent",
    )
    .option(
      "--project <subject>",
      "a long-lived project subject: checks read its decisions too, promote_decisions promotes into it",
    )
    .option(
      "--db <path>",
      "embedded store file (default: $SHARED_CTX_DB or ./.shared-ctx/store.db)",
    )
    .addOption(agentStoreOptions.kind())
    .option(
      "--database-url <url>",
      "Postgres URL, with --store postgres (default: $SHARED_CTX_DATABASE_URL, which selects it)",
    )
    .addOption(agentStoreOptions.url())
    .addHelpText(
      "after",
      [
        "",
        ...wrapWords(`Tools: ${mcpToolNames.join(", ")}.`, 100),
        "Give each agent its own --agent and the same --subject and --db; with --project, checks",
        "read the project's decisions too.",
        "",
        "Example (Claude Code):",
        "  $ claude mcp add shared-ctx -- npx shared-ctx mcp --subject my-repo --agent claude",
      ].join("\n"),
    )
    .action((options: McpCommandOptions) => serveMcp(options, deps));
}

/** `text` in lines of at most `width` characters, broken between words. */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  return line === "" ? lines : [...lines, line];
}

async function serveMcp(options: McpCommandOptions, deps: CliDeps): Promise<void> {
  const stdin = deps.stdin;
  if (!stdin)
    throw new FatalError("`shared-ctx mcp` needs standard input (it speaks MCP over stdio)");
  // Loaded here, not at the top: the MCP SDK (with ajv) is this command's alone (start-up cost),
  // and openContextStore loads only the selected store's module.
  const [{ StdioServerTransport }, { openContextStore }, { openSharedContextMcpServer }] =
    await Promise.all([
      import("@modelcontextprotocol/sdk/server/stdio.js"),
      import("../../context/open-context-store.js"),
      import("../../integrations/mcp-server.js"),
    ]);
  const store = await openContextStore({
    ...(options.store ? { store: options.store } : {}),
    ...(options.db ? { db: options.db } : {}),
    ...(options.url ? { url: options.url } : {}),
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
    env: deps.env,
    cwd: deps.cwd,
  });
  try {
    // Opened before the client can act: the replica starts from what is stored now, so a write of
    // this agent's is concurrent with every later write it has not read (escalated, never a silent
    // overwrite). Opening on first use would take in everything stored until then as if read.
    const session = await openSharedContextMcpServer({
      store,
      subjectId: options.subject,
      agentId: options.agent,
      ...(options.project ? { projectSubjectId: options.project } : {}),
      version: packageVersion(),
    });
    try {
      const closed = new Promise<void>((resolve) => {
        // The client closing our stdin is the normal end of a session (StdioClientTransport.close).
        stdin.once("end", resolve);
        stdin.once("close", resolve);
        session.server.server.onclose = resolve;
        if (deps.signal.aborted) resolve();
        deps.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      await session.server.connect(new StdioServerTransport(stdin, asWritable(deps.stdout)));
      deps.stderr.write(
        `shared-ctx mcp: subject "${options.subject}", agent "${options.agent}", listening on stdio\n`,
      );
      await closed;
    } finally {
      await session.close();
    }
  } finally {
    await store.close();
  }
}

/** The transport needs a Node stream (for backpressure); tests may hand us a plain writer. */
function asWritable(stdout: OutputStream): Writable {
  if (stdout instanceof Writable) return stdout;
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      stdout.write(chunk.toString());
      callback();
    },
  });
}
