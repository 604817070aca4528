import { Command } from "commander";
import type { Memory } from "../../context/context-store.js";
import type { CliDeps } from "../cli-deps.js";
import { activeDecisions, type DecisionStoreOptions, withProjectStore } from "../decision-store.js";
import { decisionJson } from "./decide.js";
import { addHookOptions } from "./hook-options.js";

interface DecisionsOptions extends DecisionStoreOptions {
  module?: string;
  json?: boolean;
}

/**
 * `shared-ctx decisions [--module M] [--json]`: the subject's active decisions on the project's
 * store (the hooks' and the MCP server's), with their ids (or prefixes) for `retract`; with
 * `--module`, those the edit hooks read as being about that module, and what an edit of it gets
 * now from them.
 */
export function makeDecisionsCommand(deps: CliDeps): Command {
  return addHookOptions(
    new Command("decisions").description(
      "list the active decisions the edit hooks enforce (who, authority, effect, target)",
    ),
    { agent: false },
  )
    .option("--module <name>", "only the decisions about this module, and what an edit of it gets")
    .option("--json", "print one JSON document")
    .action((options: DecisionsOptions) => listDecisions(options, deps));
}

async function listDecisions(options: DecisionsOptions, deps: CliDeps): Promise<void> {
  const [{ decideEdit, effectOn }, { defaultHookSettings }] = await Promise.all([
    import("../../hooks/edit-policy.js"),
    import("../../hooks/project-config.js"),
  ]);
  await withProjectStore(options, deps, async (store, setup) => {
    const all = (await activeDecisions(store, setup.subjectId, deps.signal)).reverse();
    const module = options.module;
    const shown =
      module === undefined ? all : all.filter((memory) => effectOn(memory, module) !== undefined);
    // What an edit of the module gets from the decisions alone, for someone who wrote none of them.
    const verdict =
      module === undefined
        ? undefined
        : decideEdit({
            module,
            path: module,
            agent: "",
            decisions: all,
            activity: { claims: [], denials: [], sessionStarts: new Map() },
            escalations: [],
            settings: { ...defaultHookSettings, onConflict: "deny" },
          });
    if (options.json) {
      const document = {
        subject: setup.subjectId,
        ...(module !== undefined ? { module } : {}),
        decisions: shown.map(decisionJson),
        ...(verdict
          ? {
              edits: {
                decision: verdict.decision,
                conflicts: verdict.conflicts.map((conflict) => conflict.type),
              },
            }
          : {}),
      };
      deps.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      return;
    }
    const lines = [
      `Active decisions of subject ${setup.subjectId}${module !== undefined ? ` about ${module}` : ""}, newest first:`,
      ...(shown.length === 0 ? ["  (none)"] : shown.map(decisionLine)),
    ];
    if (verdict && module !== undefined) {
      lines.push(
        verdict.decision === "allow"
          ? `Edits of ${module}: allowed by these decisions`
          : `Edits of ${module}: refused (${verdict.conflicts.map((conflict) => conflict.type).join(", ")})`,
      );
    }
    deps.stdout.write(`${lines.join("\n")}\n`);
  });
}

/** One decision on one line: id, when, who (authority), effect and target, words. */
function decisionLine(memory: Memory): string {
  const { source, target, authority, effect, replacement } = memory.metadata;
  const what = [
    effect !== undefined ? String(effect) : "",
    target !== undefined ? String(target) : "",
    replacement !== undefined ? `→ ${String(replacement)}` : "",
  ]
    .filter(Boolean)
    .join(" ");
  return `  ${memory.id}  ${memory.createdAt.slice(0, 16).replace("T", " ")} UTC  ${String(source ?? "unknown")} (${String(authority ?? "agent")})${what ? `  [${what}]` : ""}  ${memory.content}`;
}
