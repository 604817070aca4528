/**
 * The `promote_decisions` MCP tool: a run's active decisions proposed to a long-lived project
 * subject, the same operation as `shared-ctx promote` and the library's `promoteRun`.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { authorities } from "../context/authority.js";
import type { ContextStore } from "../context/context-store.js";
import { applyPromotion } from "../promotion/apply-promotion.js";
import { PromotionInputError } from "../promotion/errors/promotion-input-error.js";
import { planRunPromotion } from "../promotion/promote-run.js";
import { promotionDocument } from "../promotion/promotion-document.js";
import { toolError } from "./mcp-tools.js";
import { promoteDecisionsToolName } from "./tool-names.js";
import { optionalInput, text, toolInput } from "./tool-schemas.js";

/** The tool's name, title, description and annotations, as the other tools declare theirs. */
export const promoteDecisionsTool = {
  name: promoteDecisionsToolName,
  title: "Promote decisions into the project",
  description:
    "Propose this session's active decisions to a long-lived project subject, so that later sessions read them. New decisions and ones that legitimately supersede the project's (you had read it, with at least its authority) are promoted at once; a decision that conflicts with one of the project's (never read, or higher authority) is held until someone approves it. Approving or rejecting an item (its id) is recorded under your name. Call with dryRun first to see the plan; promoting again changes nothing.",
  /**
   * Not read-only (it writes into the project), not destructive (nothing is deleted or
   * overwritten: a superseded decision stays in the history), idempotent (a second call with the
   * same arguments stores nothing new), and it talks to the store only.
   */
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
} as const;

/** `promote_decisions` input. */
export const promoteDecisionsInput = toolInput({
  into: optionalInput(text()).describe(
    "The project subject to promote into. Null: the server's --project.",
  ),
  run: optionalInput(text()).describe(
    "The subject whose decisions are promoted. Null: this session's subject.",
  ),
  approve: optionalInput(z.array(text())).describe(
    "Item ids (decision memory ids) to promote although they conflict.",
  ),
  reject: optionalInput(z.array(text())).describe("Item ids to keep out of the project."),
  dryRun: optionalInput(z.boolean()).describe("Only return the plan; write nothing. Null: false."),
  authority: optionalInput(z.enum(authorities)).describe(
    "Your authority as the reviewer: 'user' only when a person told you to approve. Null: 'agent'.",
  ),
});

const candidateOutput = z
  .object({
    memoryId: z.string(),
    content: z.string(),
    target: z.string().optional(),
    author: z.string(),
    authority: z.string(),
    status: z.string(),
  })
  .passthrough();

/** `promote_decisions` output: the plan's items with their outcomes, the verdicts, what is held. */
export const promoteDecisionsOutput = z.object({
  runSubjectId: z.string(),
  projectSubjectId: z.string(),
  dryRun: z.boolean(),
  items: z.array(
    z
      .object({
        id: z.string(),
        status: z.enum(["new", "supersedes", "conflict", "unchanged", "rejected"]),
        decision: candidateOutput,
        outcome: z.enum(["promoted", "rejected", "held", "unchanged"]).optional(),
      })
      .passthrough(),
  ),
  verdicts: z.array(
    z.object({ episodeId: z.string(), by: z.string(), at: z.string() }).passthrough(),
  ),
  held: z.array(z.string()).describe("Conflicting items left out: approve or reject each."),
});

/** What the tool needs from its server. */
export interface PromoteDecisionsToolOptions {
  store: ContextStore;
  /** This session's subject: the run promoted by default. */
  subjectId: string;
  /** Who this server speaks for: approvals and rejections are attributed to it. */
  agentId: string;
  /** The project subject promoted into by default (`shared-ctx mcp --project`). */
  projectSubjectId?: string;
}

/**
 * The line a model reads first: how many items came to what (or, in a dry run, are what), and the
 * held ids to approve or reject.
 */
function promotionSummary(document: ReturnType<typeof promotionDocument>): string {
  const counts = new Map<string, number>();
  for (const item of document.items) {
    const word = document.dryRun ? item.status : (item.outcome ?? item.status);
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const tally = [...counts].map(([word, count]) => `${count} ${word}`).join(", ") || "no decisions";
  const held =
    document.held.length > 0 ? ` Held (approve or reject each): ${document.held.join(", ")}.` : "";
  const dry = document.dryRun ? " Dry run: nothing was written." : "";
  return `Promotion of ${document.runSubjectId} into ${document.projectSubjectId}: ${tally}.${held}${dry}`;
}

/** Registers `promote_decisions` on `server`. */
export function registerPromoteDecisionsTool(
  server: McpServer,
  options: PromoteDecisionsToolOptions,
): void {
  server.registerTool(
    promoteDecisionsTool.name,
    {
      title: promoteDecisionsTool.title,
      description: promoteDecisionsTool.description,
      inputSchema: promoteDecisionsInput,
      outputSchema: promoteDecisionsOutput,
      annotations: promoteDecisionsTool.annotations,
    },
    async (input): Promise<CallToolResult> => {
      const into = input.into ?? options.projectSubjectId;
      if (into === undefined) {
        return toolError(
          "promote_decisions needs `into`: the project subject (or start the server with --project)",
        );
      }
      try {
        const plan = await planRunPromotion(options.store, {
          runSubjectId: input.run ?? options.subjectId,
          projectSubjectId: into,
        });
        const result = input.dryRun
          ? undefined
          : await applyPromotion(options.store, plan, {
              approve: input.approve ?? [],
              reject: input.reject ?? [],
              approver: options.agentId,
              approverAuthority: input.authority ?? "agent",
            });
        const document = promotionDocument(plan, result);
        const summary = promotionSummary(document);
        return {
          content: [{ type: "text", text: `${summary}\n\n${JSON.stringify(document, null, 2)}` }],
          structuredContent: document,
        };
      } catch (error) {
        if (error instanceof PromotionInputError) return toolError(error.message);
        throw error;
      }
    },
  );
}
