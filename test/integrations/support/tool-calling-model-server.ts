import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One chat message as the model server received it (OpenAI chat-completions format). */
export interface ReceivedMessage {
  role: string;
  content: unknown;
  tool_call_id?: string;
}

/** What the scripted model answers to one request. */
export type ModelTurn =
  | { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> }
  | { text: string };

/**
 * A loopback OpenAI-compatible chat-completions server (127.0.0.1, port 0) playing a model that
 * makes real tool calls: request `i` is answered with `turns[i]`. The real `@ai-sdk/openai`
 * provider talks to it, so tool calls and tool results go through the AI SDK's own wire format.
 */
export async function startToolCallingModelServer(turns: readonly ModelTurn[]) {
  const requests: ReceivedMessage[][] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      const parsed = JSON.parse(body || "{}") as { messages?: ReceivedMessage[] };
      const index = requests.length;
      requests.push(parsed.messages ?? []);
      const turn = turns[index] ?? { text: "(no more turns)" };
      const message =
        "toolCalls" in turn
          ? {
              role: "assistant",
              content: null,
              tool_calls: turn.toolCalls.map((call, callIndex) => ({
                id: `call_${index}_${callIndex}`,
                type: "function",
                function: { name: call.name, arguments: JSON.stringify(call.arguments) },
              })),
            }
          : { role: "assistant", content: turn.text };
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${index}`,
          object: "chat.completion",
          created: 0,
          model: "loopback",
          choices: [
            {
              index: 0,
              message,
              finish_reason: "toolCalls" in turn ? "tool_calls" : "stop",
            },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    /** The messages of each request, in order. */
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
