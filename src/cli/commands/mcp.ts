import { Writable } from "node:stream";
import { Command } from "commander";
import { mcpToolNames } from "../../integrations/tool-names.js";
import type { CliDeps, OutputStream } from "../cli-deps.js";
import { FatalError } from "../fatal-error.js";
import { packageVersion } from "../version.js";
import { agentStoreOptions } from "./hook-options.js";

interface McpCommandOptions {
  subject?: string;
  agent?: string;
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
    .option(
      "--subject <id>",
      "the shared subject (default: shared-ctx.config.json's subject, $SHARED_CTX_SUBJECT, or the repository folder's name, as the hooks)",
    )
    .option(
      "--agent <name>",
      "who this agent is: decisions and state writes are attributed to it (default: $SHARED_CTX_AGENT, else the Claude Code session ($CLAUDE_CODE_SESSION_ID) as the hooks name it, else agent)",
    )
    .option(
      "--project <subject>",
      "a long-lived project subject: checks read its decisions too, promote_decisions promotes into it",
    )
    .option(
      "--db <path>",
      "embedded store file, relative to the repository (default: $SHARED_CTX_DB or <repository>/.shared-ctx/store.db, the hooks' store from any worktree or subfolder)",
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
        "  $ shared-ctx init claude-code      (writes .mcp.json and the hooks; see docs/coding-agents.md)",
      ].join("\n"),
    )
    .action((options: McpCommandOptions) => serveMcp(options, deps));
}

/**
 * Who an MCP server speaks for without `--agent`: the name its session's hooks use (see hookAgentId:
 * `SHARED_CTX_AGENT`, else the session id, which Claude Code gives stdio MCP servers as
 * `CLAUDE_CODE_SESSION_ID` and hooks as `session_id`), else `agent`.
 */
export async function mcpAgentName(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  if (flag) return flag;
  const { hookAgentId } = await import("../../hooks/hook-input.js");
  const name = hookAgentId(
    { sessionId: env.CLAUDE_CODE_SESSION_ID ?? "", toolInput: {} },
    undefined,
    env.SHARED_CTX_AGENT,
  );
  return name || "agent";
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
  // The same project, subject and store as the hooks, from any subfolder or worktree.
  const { hookStoreOptions, resolveHookProject } = await import("../hook-runtime.js");
  const setup = resolveHookProject(
    { ...(options.subject ? { subject: options.subject } : {}) },
    deps,
  );
  const subjectId = setup.subjectId;
  const agentId = await mcpAgentName(options.agent, deps.env);
  // Start-up: `initialize` is answered before anything else loads (the MCP SDK's stdio transport
  // and what the server says of itself); the store, the replica, Loro and the tools follow.
  const transport = await listenEarly({ subjectId, agentId }, stdin, deps.stdout);
  const closed = sessionEnd(stdin, deps.signal);
  let connected = false;
  try {
    // Loaded here, not at the top: openContextStore loads only the selected store's module.
    const [{ openContextStore }, { openSharedContextMcpServer }] = await Promise.all([
      import("../../context/open-context-store.js"),
      import("../../integrations/mcp-server.js"),
    ]);
    const store = await openContextStore(hookStoreOptions(options, deps, setup));
    try {
      // Opened before any request but `initialize` is handled (the others wait in the transport's
      // queue): the replica starts from what is stored now, so a write of this agent's is
      // concurrent with every later write it has not read (escalated, never a silent overwrite).
      // Opening on first use would take in everything stored until then as if read.
      const session = await openSharedContextMcpServer({
        store,
        subjectId,
        agentId,
        ...(options.project ? { projectSubjectId: options.project } : {}),
        version: packageVersion(),
      });
      try {
        session.server.server.onclose = closed.end;
        connected = true;
        await session.server.connect(transport);
        deps.stderr.write(
          `shared-ctx mcp: subject "${subjectId}", agent "${agentId}", repository ${setup.storeRoot}, listening on stdio\n`,
        );
        await closed.promise;
      } finally {
        await session.close();
      }
    } finally {
      await store.close();
    }
  } finally {
    // The server closes the transport it was connected to; before that, it is ours to close.
    if (!connected) await transport.close();
  }
}

/** Stdio, reading from now on, answering `initialize` for the server connected to it later. */
async function listenEarly(
  who: { subjectId: string; agentId: string },
  stdin: NodeJS.ReadStream,
  stdout: OutputStream,
) {
  const [{ StdioServerTransport }, { EarlyInitializeTransport }, { sharedContextServerInfo }] =
    await Promise.all([
      import("@modelcontextprotocol/sdk/server/stdio.js"),
      import("../../integrations/early-initialize-transport.js"),
      import("../../integrations/mcp-server-info.js"),
    ]);
  const transport = new EarlyInitializeTransport(
    new StdioServerTransport(stdin, asWritable(stdout)),
    sharedContextServerInfo({ ...who, version: packageVersion() }),
  );
  await transport.listen();
  return transport;
}

/** Resolved when the session ends: the client closes our stdin (the normal end), or we are stopped. */
function sessionEnd(
  stdin: NodeJS.ReadStream,
  signal: AbortSignal,
): { promise: Promise<void>; end: () => void } {
  let end = () => {};
  const promise = new Promise<void>((resolve) => {
    end = resolve;
    stdin.once("end", resolve);
    stdin.once("close", resolve);
    if (signal.aborted) resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
  return { promise, end };
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
