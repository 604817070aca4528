/**
 * A Vercel AI SDK agent that checks the shared decisions before acting and publishes its own.
 * Needs a model: OPENAI_API_KEY (and optionally OPENAI_BASE_URL for any OpenAI-compatible server,
 * e.g. http://localhost:11434/v1 for Ollama, and OPENAI_MODEL).
 *
 *   OPENAI_API_KEY=sk-... npx tsx examples/ai-sdk-agent.ts
 *
 * In your own project, import from "shared-ctx" instead of "../src/index.js".
 */
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs } from "ai";
import { EmbeddedStore, SharedContext, SharedState, sharedContextTools } from "../src/index.js";

if (!process.env.OPENAI_API_KEY) {
  console.error("Set OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server) to run this.");
  process.exit(1);
}
const openai = createOpenAI({
  apiKey: process.env.OPENAI_API_KEY,
  ...(process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : {}),
});

const store = new EmbeddedStore({ path: ".shared-ctx/example.db" });
const subjectId = "auth-service";
const state = await SharedState.open({ store, subjectId, agentId: "coder" });
const shared = new SharedContext({ store, subjectId, state });

// Another agent decided earlier (in another process, it would be the same database file).
await shared.decide("planner", "Deprecate legacy-session-token; issue RS256 JWTs instead", {
  kind: "architectural_decision",
  target: "legacy-session-token",
});

const { text, steps } = await generateText({
  model: openai.chat(process.env.OPENAI_MODEL ?? "gpt-4o-mini"),
  tools: sharedContextTools(shared, { callerId: "coder" }),
  stopWhen: stepCountIs(5),
  system:
    "You are the coder. Call check_shared_decisions before planning, never contradict a decision, and publish_decision for each choice you make.",
  prompt: "Plan the session handling of the login endpoint.",
});

for (const step of steps) {
  for (const call of step.toolCalls)
    console.log(`tool: ${call.toolName} ${JSON.stringify(call.input)}`);
}
console.log(`\n${text}`);

await shared.close();
await state.close();
await store.close();
