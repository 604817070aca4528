/**
 * Two agents, one shared context: the planner decides, the coder reads before acting, and both
 * write the same shared-state fields at the same time (lists merge, a scalar conflict is escalated).
 *
 *   npx tsx examples/two-agents.ts
 *
 * In your own project, import from "shared-ctx" instead of "../src/index.js".
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Disputed, EmbeddedStore, SharedContext, SharedState } from "../src/index.js";

const folder = mkdtempSync(join(tmpdir(), "shared-ctx-example-"));
const store = new EmbeddedStore({ path: join(folder, "store.db") });
const subjectId = "auth-service";

// One replica of the shared state per agent, as two processes would have.
const planner = await SharedState.open({ store, subjectId, agentId: "planner" });
const coder = await SharedState.open({ store, subjectId, agentId: "coder" });
const shared = new SharedContext({ store, subjectId, state: coder });

// 1. The planner publishes a decision.
await shared.decide("planner", "Deprecate legacy-session-token; issue RS256 JWTs instead", {
  kind: "architectural_decision",
  target: "legacy-session-token",
});

// 2. Before acting, the coder reads the shared context: it sees the decision and does not rebuild
//    the deprecated module.
const read = await shared.beforeActing("coder", "rebuild the legacy-session-token module");
console.log("coder reads before acting:");
for (const decision of read.decisions) console.log(`  decision: ${decision.content}`);

// 3. Both write the same fields at the same time, neither having seen the other's write.
await Promise.all([
  planner.put("plan", "modules", ["jwt-issuer"]),
  coder.put("plan", "modules", ["login-endpoint"]),
  planner.put("plan", "token_ttl_seconds", 900),
  coder.put("plan", "token_ttl_seconds", 3600),
]);
await Promise.all([planner.sync(), coder.sync()]);

console.log("\nshared state after the concurrent writes:");
console.log(`  modules (merged): ${JSON.stringify(coder.get("plan", "modules"))}`);
const ttl = coder.get("plan", "token_ttl_seconds");
if (ttl instanceof Disputed) {
  const sides = ttl.contenders.map((contender) => `${contender.agentId}=${contender.value}`);
  console.log(`  token_ttl_seconds: disputed (${sides.join(" vs ")}), nobody silently won`);

  // 4. Someone settles it; every replica converges on the attributed resolution.
  await coder.resolve(ttl.escalationId, 900, { by: "planner" });
  await planner.sync();
  console.log(
    `  resolved by planner: token_ttl_seconds = ${planner.get("plan", "token_ttl_seconds")}`,
  );
}

await shared.close();
await Promise.all([planner.close(), coder.close()]);
await store.close();
rmSync(folder, { recursive: true, force: true });
