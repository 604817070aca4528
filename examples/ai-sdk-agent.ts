/**
 * A Vercel AI SDK agent that checks the shared decisions before acting and publishes its own.
 * Needs a model, named the way `shared-ctx run` names it (see .env.example):
 *
 *   LLM_MODEL=openai/gpt-4o-mini LLM_API_KEY=sk-... npx tsx examples/ai-sdk-agent.ts
 *   LLM_MODEL=ollama/llama3.1 npx tsx examples/ai-sdk-agent.ts        # local Ollama, no key
 *   LLM_MODEL=myserver/qwen2.5 LLM_BASE_URL=http://localhost:8000/v1 npx tsx examples/ai-sdk-agent.ts
 *
 * `.env` in the working directory is read too. In your own project, import from "shared-ctx" and
 * "shared-ctx/llm" instead of "../src/index.js" and "../src/llm.js".
 */
import { generateText, stepCountIs } from "ai";
import { config } from "dotenv";
import {
  EmbeddedStore,
  LlmConfigError,
  readLlmSettings,
  SharedContext,
  SharedState,
  sharedContextTools,
} from "../src/index.js";
import { createLlmProvider } from "../src/llm.js";

config({ quiet: true });
let settings: ReturnType<typeof readLlmSettings>;
try {
  settings = readLlmSettings(process.env);
} catch (error) {
  // A malformed LLM_* variable: the message names the one to fix.
  if (!(error instanceof LlmConfigError)) throw error;
  console.error(error.message);
  process.exit(2);
}
if (settings === undefined) {
  console.error(
    "Set LLM_MODEL=<provider>/<model> (and LLM_API_KEY, or LLM_BASE_URL for any OpenAI-compatible server) to run this.",
  );
  process.exit(2);
}
const model = createLlmProvider(settings);

const store = new EmbeddedStore({ path: ".shared-ctx/example.db" });
const subjectId = "auth-service";
const state = await SharedState.open({ store, subjectId, agentId: "coder" });
const shared = new SharedContext({ store, subjectId, state });

// Another agent decided earlier (in another process, it would be the same database file).
await shared.decide("planner", "Deprecate legacy-session-token; issue RS256 JWTs instead", {
  kind: "architectural_decision",
  target: "legacy-session-token",
});

try {
  const { text, steps } = await generateText({
    model,
    tools: sharedContextTools(shared, { callerId: "coder" }),
    stopWhen: stepCountIs(5),
    timeout: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    system:
      "You are the coder. Call check_shared_decisions before planning, never contradict a decision, and publish_decision for each choice you make.",
    prompt: "Plan the session handling of the login endpoint.",
  });
  for (const step of steps) {
    for (const call of step.toolCalls)
      console.log(`tool: ${call.toolName} ${JSON.stringify(call.input)}`);
  }
  console.log(`\n${text}`);
} finally {
  await shared.close();
  await state.close();
  await store.close();
}
