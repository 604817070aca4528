import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A scripted model API on 127.0.0.1 (port 0) that the real coding CLIs talk to: Anthropic's
 * Messages API (`POST /v1/messages`, streamed or not) for Claude Code through
 * `ANTHROPIC_BASE_URL`, and the Gemini API (`…:generateContent`, `…:streamGenerateContent`) for
 * Gemini CLI through `GOOGLE_GEMINI_BASE_URL`. Every request body is kept, so a test can read what
 * the CLI sent back after a tool call (the hook's reason reaching the model).
 */

/** What the script answers one request with: a tool call, or text that ends the turn. */
export type ScriptedTurn =
  | { readonly tool: string; readonly input: Record<string, unknown> }
  | { readonly text: string };

/** One received request: its path and its JSON body. */
export interface ReceivedCall {
  readonly path: string;
  // biome-ignore lint/suspicious/noExplicitAny: the CLI's request body, read loosely by the tests
  readonly body: any;
}

/** Decides the answer to a request that offers tools (the agent's turn); others get text. */
export type Script = (call: ReceivedCall, turn: number) => ScriptedTurn;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => resolve(body));
    request.on("error", reject);
  });
}

/** Anthropic's streamed message events for `turn`. */
function anthropicEvents(turn: ScriptedTurn, model: string, index: number): object[] {
  const id = `msg_scripted${index}`;
  const usage = { input_tokens: 10, output_tokens: 5 };
  const isTool = "tool" in turn;
  const block = isTool
    ? { type: "tool_use", id: `toolu_scripted${index}`, name: turn.tool, input: {} }
    : { type: "text", text: "" };
  const delta = isTool
    ? { type: "input_json_delta", partial_json: JSON.stringify(turn.input) }
    : { type: "text_delta", text: turn.text };
  return [
    {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    },
    { type: "content_block_start", index: 0, content_block: block },
    { type: "content_block_delta", index: 0, delta },
    { type: "content_block_stop", index: 0 },
    {
      type: "message_delta",
      delta: { stop_reason: isTool ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: 5 },
    },
    { type: "message_stop" },
  ];
}

function anthropicMessage(turn: ScriptedTurn, model: string, index: number): object {
  const content =
    "tool" in turn
      ? [{ type: "tool_use", id: `toolu_scripted${index}`, name: turn.tool, input: turn.input }]
      : [{ type: "text", text: turn.text }];
  return {
    id: `msg_scripted${index}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: "tool" in turn ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

function geminiResponse(turn: ScriptedTurn): object {
  const part =
    "tool" in turn ? { functionCall: { name: turn.tool, args: turn.input } } : { text: turn.text };
  return {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: "gemini-2.5-flash",
  };
}

/** Whether a request is the agent's own turn (it offers the edit tools), not a side request. */
function offersTools(body: { tools?: unknown[] }): boolean {
  return Array.isArray(body.tools) && body.tools.length > 0;
}

/** Starts the scripted API. */
export async function startScriptedModelApi(script: Script) {
  const calls: ReceivedCall[] = [];
  let turns = 0;
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? "/";
    const text = await readBody(request);
    const body = text ? JSON.parse(text) : {};
    const call = { path, body };
    calls.push(call);
    const turn: ScriptedTurn = offersTools(body) ? script(call, turns++) : { text: "ok" };
    if (path.startsWith("/v1/messages/count_tokens")) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ input_tokens: 10 }));
    } else if (path.startsWith("/v1/messages")) {
      const model = String(body.model ?? "claude-scripted");
      if (body.stream) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        for (const event of anthropicEvents(turn, model, calls.length)) {
          response.write(
            `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`,
          );
        }
        response.end();
      } else {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify(anthropicMessage(turn, model, calls.length)));
      }
    } else if (path.includes(":streamGenerateContent")) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(`data: ${JSON.stringify(geminiResponse(turn))}\n\n`);
    } else if (path.includes(":generateContent")) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(geminiResponse(turn)));
    } else if (path.includes(":countTokens")) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ totalTokens: 10 }));
    } else {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: `not scripted: ${path}` } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
