import { randomUUID } from "node:crypto";
import type { Hono } from "hono";
import { HttpError } from "./http-error.js";
import type { ServerEnv } from "./server-env.js";

/**
 * The shared-ctx MCP server over MCP's streamable HTTP transport, at `/mcp` of `serve`: what
 * `shared-ctx mcp` gives one agent over stdio, with no process per session. `POST /mcp?subject=ID`
 * with an `initialize` request opens a session (its id comes back in `Mcp-Session-Id`, which every
 * later request carries; `GET` opens the notification stream, `DELETE` ends it). The agent is
 * `X-Shared-Ctx-Agent` (or `?agent=`), the long-lived project subject `?project=`. A session is
 * bound to the tenant that opened it. Behind the same Host check and API key as `/v1`.
 */

/** One open MCP session. */
interface McpSession {
  readonly tenantId: string | null;
  readonly handle: (request: Request) => Promise<Response>;
  readonly close: () => Promise<void>;
}

/** Options of {@link registerMcpRoutes}. */
export interface McpRouteOptions {
  /** Reported in the MCP handshake. @default "0.0.0" */
  version?: string;
  /** Sessions open at once; opening one more closes the oldest. @default 256 */
  maxSessions?: number;
}

/** Adds `/mcp` to `app`. */
export function registerMcpRoutes(app: Hono<ServerEnv>, options: McpRouteOptions = {}): void {
  const sessions = new Map<string, McpSession>();
  const maxSessions = options.maxSessions ?? 256;
  app.all("/mcp", async (c) => {
    const tenantId = c.req.header("x-tenant-id") ?? null;
    const sessionId = c.req.header("mcp-session-id");
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (session === undefined) {
        throw new HttpError(404, {
          code: "not_found",
          message: "No such MCP session (it ended, or the server restarted): initialize a new one",
        });
      }
      if (session.tenantId !== tenantId) {
        throw new HttpError(403, {
          code: "tenant_not_allowed",
          message: "This MCP session belongs to another tenant (X-Tenant-ID)",
        });
      }
      return session.handle(c.req.raw);
    }
    if (c.req.method !== "POST") {
      throw new HttpError(400, {
        code: "bad_request",
        message: "Start an MCP session with POST /mcp?subject=ID (an initialize request)",
      });
    }
    const subjectId = c.req.query("subject");
    if (!subjectId) {
      throw HttpError.validation([
        { type: "missing", loc: ["query", "subject"], msg: "Field required: the shared subject" },
      ]);
    }
    const agentId = c.req.header("x-shared-ctx-agent") || c.req.query("agent") || "agent";
    const projectSubjectId = c.req.query("project");
    // Loaded on the first session: the MCP SDK is this route's alone (serve's start-up).
    const [{ WebStandardStreamableHTTPServerTransport }, { openSharedContextMcpServer }] =
      await Promise.all([
        import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
        import("../integrations/mcp-server.js"),
      ]);
    const mcp = await openSharedContextMcpServer({
      store: c.get("store"),
      subjectId,
      agentId,
      ...(projectSubjectId ? { projectSubjectId } : {}),
      ...(options.version ? { version: options.version } : {}),
    });
    let id: string | undefined;
    const close = async () => {
      if (id !== undefined) sessions.delete(id);
      await mcp.close().catch(() => undefined);
    };
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (opened) => {
        id = opened;
        if (sessions.size >= maxSessions) {
          const oldest = sessions.keys().next().value;
          if (oldest !== undefined) void sessions.get(oldest)?.close();
        }
        sessions.set(opened, {
          tenantId,
          handle: (request) => transport.handleRequest(request),
          close,
        });
      },
      onsessionclosed: () => close(),
    });
    await mcp.server.connect(transport);
    const response = await transport.handleRequest(c.req.raw);
    // Not an initialize (or a refused one): no session was opened, nothing to keep.
    if (id === undefined) await close();
    return response;
  });
}
