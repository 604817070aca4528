import { Command, Option } from "commander";
import { type Authority, authorities, authorityOf, mayOverrule } from "../../context/authority.js";
import type { Memory } from "../../context/context-store.js";
import { type DecisionEffect, decisionEffects } from "../../context/decision-effect.js";
import type { CliDeps } from "../cli-deps.js";
import {
  activeDecisions,
  type DecisionStoreOptions,
  decisionByPrefix,
  personName,
  withProjectStore,
} from "../decision-store.js";
import { UsageError } from "../fatal-error.js";
import { addHookOptions } from "./hook-options.js";

/**
 * A person's decisions from the command line, on the store the hooks and the MCP server use:
 * `shared-ctx decide "…" --target X --effect retire|keep|freeze|replace` and `shared-ctx retract ID`.
 * Authority `user` by default: a person said it, so no agent's decision overrules it.
 */

interface PersonOptions extends DecisionStoreOptions {
  as?: string;
  authority: Authority;
  json?: boolean;
}

interface DecideOptions extends PersonOptions {
  target: string;
  effect: DecisionEffect;
  replacement?: string;
}

interface RetractOptions extends PersonOptions {
  reason?: string;
}

/** `--authority` and `--as`, worded alike on both commands. */
function addPersonOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        "--authority <class>",
        "how it was established: user (a person: you), verified (a tool or test showed it), agent",
      )
        .choices(authorities.filter((authority) => authority !== "speculative"))
        .default("user"),
    )
    .option("--as <name>", "who decides (default: $SHARED_CTX_USER, else $USER)")
    .option("--json", "print one JSON document");
}

/** `shared-ctx decide`. */
export function makeDecideCommand(deps: CliDeps): Command {
  const command = new Command("decide")
    .description(
      "record a person's decision about a module on the project's store: the edit hooks enforce its effect",
    )
    .argument("<text>", "the decision, in words an agent can act on")
    .requiredOption("--target <name>", "the module (or thing) it is about, e.g. legacy-billing")
    .addOption(
      new Option(
        "--effect <effect>",
        "retire (nobody builds on it), keep (it stays; lifts a retire or freeze), freeze (no edits by anyone until lifted), replace (give --replacement)",
      )
        .choices(decisionEffects)
        .makeOptionMandatory(),
    )
    .option("--replacement <name>", "with --effect replace: what replaces the target");
  return addHookOptions(addPersonOptions(command), { agent: false })
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        '  $ shared-ctx decide "Retire legacy-billing: invoices replaces it" --target legacy-billing --effect replace --replacement invoices',
        '  $ shared-ctx decide "Freeze payments until the audit ends" --target payments --effect freeze',
        "  $ shared-ctx decisions --module legacy-billing",
      ].join("\n"),
    )
    .action((text: string, options: DecideOptions) => decide(text, options, deps));
}

/** `shared-ctx retract`. */
export function makeRetractCommand(deps: CliDeps): Command {
  const command = new Command("retract")
    .description("take back an active decision (by id, or the start of one)")
    .argument("<id>", "the decision's id or a prefix of it (shared-ctx decisions lists them)")
    .option("--reason <text>", "why, so the agents that relied on it know what to do");
  return addHookOptions(addPersonOptions(command), { agent: false }).action(
    (id: string, options: RetractOptions) => retract(id, options, deps),
  );
}

function checkDecideFlags(text: string, options: DecideOptions): void {
  if (text.trim() === "") throw new UsageError("<text>: the decision cannot be empty");
  if (options.target.trim() === "") throw new UsageError("--target: give the module's name");
  if (options.effect === "replace" && !options.replacement?.trim()) {
    throw new UsageError(
      "--replacement: required with --effect replace (what replaces the target)",
    );
  }
  if (options.effect !== "replace" && options.replacement !== undefined) {
    throw new UsageError("--replacement: only with --effect replace");
  }
}

async function decide(text: string, options: DecideOptions, deps: CliDeps): Promise<void> {
  checkDecideFlags(text, options);
  const author = personName(options.as, deps.env);
  const target = options.target.trim();
  await withProjectStore(options, deps, async (store, setup) => {
    const { SharedContext } = await import("../../context/shared-context.js");
    const before = await activeDecisions(store, setup.subjectId, deps.signal);
    // The person decides knowing what stands on the target (`decisions` shows it): the new decision
    // replaces those it may overrule; one of higher authority stays, and the two are a dispute.
    const onTarget = before.filter((memory) => memory.metadata.target === target);
    const shared = new SharedContext({ store, subjectId: setup.subjectId });
    const result = await shared
      .decide(author, text.trim(), {
        target,
        effect: options.effect,
        ...(options.replacement ? { replacement: options.replacement.trim() } : {}),
        authority: options.authority,
        readMemoryIds: onTarget.map((memory) => memory.id),
      })
      .finally(() => shared.close());
    const after = new Set(
      (await activeDecisions(store, setup.subjectId)).map((memory) => memory.id),
    );
    const superseded = onTarget.filter((memory) => !after.has(memory.id));
    const standing = onTarget.filter((memory) => after.has(memory.id));
    const memory = result.memories[0];
    report(
      deps,
      options.json,
      {
        subject: setup.subjectId,
        decision: memory ? decisionJson(memory) : { episodeId: result.episode.id },
        supersedes: superseded.map(decisionJson),
        disputes: standing.map(decisionJson),
      },
      [
        `Decided (decision ${memory?.id ?? result.episode.id}, subject ${setup.subjectId}): ${text.trim()}`,
        `  ${options.effect} ${target}${options.replacement ? ` → ${options.replacement.trim()}` : ""}, by ${author} (${options.authority})`,
        ...superseded.map((old) => `  supersedes ${old.id}: ${describe(old)}`),
        ...standing.map(
          (old) =>
            `  disputed with ${old.id}: ${describe(old)} (it stays active: a person settles the dispute)`,
        ),
      ],
    );
  });
}

async function retract(idOrPrefix: string, options: RetractOptions, deps: CliDeps): Promise<void> {
  const author = personName(options.as, deps.env);
  await withProjectStore(options, deps, async (store, setup) => {
    const { SharedContext } = await import("../../context/shared-context.js");
    const memory = decisionByPrefix(
      await activeDecisions(store, setup.subjectId, deps.signal),
      idOrPrefix,
    );
    const held = authorityOf(memory.metadata);
    // Checked before writing: a retraction that could not take the decision back changes nothing.
    if (!mayOverrule(options.authority, held)) {
      throw new UsageError(
        `--authority: ${memory.id} is a ${held} decision; only a retraction of authority ${held} or higher takes it back`,
      );
    }
    const shared = new SharedContext({ store, subjectId: setup.subjectId });
    const result = await shared
      .retract(author, memory.id, {
        ...(options.reason ? { reason: options.reason } : {}),
        authority: options.authority,
      })
      .finally(() => shared.close());
    report(
      deps,
      options.json,
      {
        subject: setup.subjectId,
        retracted: decisionJson(memory),
        retraction: result.memories[0]
          ? decisionJson(result.memories[0])
          : { episodeId: result.episode.id },
      },
      [`Retracted ${memory.id}: ${describe(memory)}, by ${author} (${options.authority})`],
    );
  });
}

/** A decision in one line: its author and words. */
function describe(memory: Memory): string {
  return `${String(memory.metadata.source ?? "unknown")}: "${memory.content}"`;
}

/** A decision as the commands print it in JSON. */
export function decisionJson(memory: Memory): Record<string, unknown> {
  const { source, target, authority, effect, replacement, contradicts } = memory.metadata;
  return {
    id: memory.id,
    author: source ?? "unknown",
    at: memory.createdAt,
    content: memory.content,
    ...(target !== undefined ? { target } : {}),
    authority: authority ?? "agent",
    ...(effect !== undefined ? { effect } : {}),
    ...(replacement !== undefined ? { replacement } : {}),
    ...(contradicts !== undefined ? { contradicts } : {}),
  };
}

function report(
  deps: CliDeps,
  json: boolean | undefined,
  document: Record<string, unknown>,
  lines: readonly string[],
): void {
  deps.stdout.write(json ? `${JSON.stringify(document, null, 2)}\n` : `${lines.join("\n")}\n`);
}
