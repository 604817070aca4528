import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One chat-completions request as the fake server received it. */
export interface ReceivedRequest {
  authorization: string | undefined;
  /** `response_format.json_schema.name`, i.e. which question the brain asked. */
  schemaName: string | undefined;
  /** The last user message. */
  prompt: string;
}

/** What the server does with one request. */
export type FakeReply =
  | { kind: "json"; content: unknown }
  | { kind: "text"; content: string }
  | { kind: "status"; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: "hang" };

/**
 * A small OpenAI-compatible server on 127.0.0.1 (port 0): POST /v1/chat/completions answers with
 * whatever `reply` returns for the request. The real `@ai-sdk/openai` provider talks to it.
 */
export async function startFakeOpenAiServer(
  reply: (request: ReceivedRequest, index: number) => FakeReply,
) {
  const received: ReceivedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      const parsed = JSON.parse(body || "{}") as {
        messages?: Array<{ role: string; content: unknown }>;
        response_format?: { json_schema?: { name?: string } };
      };
      const user = [...(parsed.messages ?? [])]
        .reverse()
        .find((message) => message.role === "user");
      const entry: ReceivedRequest = {
        authorization: request.headers.authorization,
        schemaName: parsed.response_format?.json_schema?.name,
        prompt:
          typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? ""),
      };
      received.push(entry);
      const answer = reply(entry, received.length - 1);
      if (answer.kind === "hang") {
        hanging.add(response);
        return;
      }
      if (answer.kind === "status") {
        response.writeHead(answer.status, {
          "content-type": "application/json",
          ...answer.headers,
        });
        response.end(
          JSON.stringify(
            answer.body ?? { error: { message: `status ${answer.status}`, type: "test" } },
          ),
        );
        return;
      }
      const content = answer.kind === "json" ? JSON.stringify(answer.content) : answer.content;
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${received.length}`,
          object: "chat.completion",
          created: 0,
          model: "test-model",
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    received,
    async close(): Promise<void> {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A rule-following "model" for full runs: deprecations in the prompt make the Coder skip, the
 * Reviewer reports deprecated builds. It only knows what the prompt tells it.
 */
export function ruleFollowingReply(request: ReceivedRequest): FakeReply {
  const prompt = request.prompt;
  switch (request.schemaName) {
    case "planner_decisions": {
      const intended = /The architecture you have settled on: (\[[\s\S]*?\n\])/.exec(prompt)?.[1];
      return { kind: "json", content: { decisions: intended ? JSON.parse(intended) : [] } };
    }
    case "module_plan": {
      const expected = /Your team lead expects these modules: (.*)/.exec(prompt)?.[1] ?? "main";
      return { kind: "json", content: { modules: expected.split(", ") } };
    }
    case "module_step": {
      const module = /about to build module "([^"]+)"/.exec(prompt)?.[1] ?? "";
      const decisions = JSON.parse(
        /Decisions you know of: (\[[\s\S]*?\n\]|\[\])/.exec(prompt)?.[1] ?? "[]",
      ) as Array<{
        target: string;
        value: string;
        by: string;
      }>;
      const deprecation = decisions.find(
        (decision) => decision.target === module && decision.value === "deprecate",
      );
      return {
        kind: "json",
        content: deprecation
          ? { action: "skip", reason: `deprecated by ${deprecation.by}`, causedBy: deprecation.by }
          : { action: "build", reason: "needed", causedBy: "" },
      };
    }
    case "review": {
      const decisions = JSON.parse(
        /Decisions: (\[[\s\S]*?\n\]|\[\])/.exec(prompt)?.[1] ?? "[]",
      ) as Array<{
        target: string;
        value: string;
        by: string;
      }>;
      const builds = JSON.parse(
        /Builds: (\[[\s\S]*?\n\]|\[\])/.exec(prompt)?.[1] ?? "[]",
      ) as Array<{
        module: string;
        agentId: string;
      }>;
      const findings = builds
        .filter((build) =>
          decisions.some(
            (decision) => decision.target === build.module && decision.value === "deprecate",
          ),
        )
        .map((build) => ({
          module: build.module,
          agents: [build.agentId],
          description: `${build.module} was deprecated`,
        }));
      return { kind: "json", content: { findings } };
    }
    default:
      return {
        kind: "status",
        status: 400,
        body: { error: { message: `unknown schema ${request.schemaName}` } },
      };
  }
}
