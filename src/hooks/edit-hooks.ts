import { isAbsolute, relative, sep } from "node:path";
import type { ContextStore } from "../context/context-store.js";
import { messageOf } from "../errors.js";
import { claimEpisode, editsSubjectOf, sessionEpisode } from "./edit-activity.js";
import {
  decideEdit,
  decisionRef,
  type EditVerdict,
  sameLine,
  stanceOn,
  unreadContext,
} from "./edit-policy.js";
import { editTargets } from "./edit-targets.js";
import type { HookInput } from "./hook-input.js";
import { readFacts, registerFacts, shownAtStart } from "./hook-reads.js";
import { modulesNamespace, raiseModuleEscalation } from "./module-escalation.js";
import { moduleOf, type ProjectConfig } from "./project-config.js";
import { projectPathsOf } from "./real-paths.js";
import { recordRefusals } from "./refusal-records.js";

/**
 * The edit hooks over a store: what `shared-ctx hook pre-tool-use|post-tool-use|session-start`
 * and `shared-ctx check` do, as functions returning what to answer. The store, the clock and the
 * shared-state opener are injected; nothing here prints or exits (that is `src/cli/`'s).
 */

export { claimedByPrefix, modulesNamespace, raiseModuleEscalation } from "./module-escalation.js";
export { conflictSummary, recordRefusals } from "./refusal-records.js";

/** What every hook call needs. */
export interface EditHookContext {
  readonly store: ContextStore;
  readonly subjectId: string;
  /** Who is acting: the harness session id, or `--agent`. */
  readonly agent: string;
  /** The project root, absolute: module globs are relative to it. */
  readonly root: string;
  readonly project: ProjectConfig;
  /** @default Date.now */
  readonly now?: () => number;
  /** Aborts the store calls (the hook's time budget). */
  readonly signal?: AbortSignal;
  /**
   * Writes the two concurrent claims that raise a module's escalation. Injected so that the
   * shared state (Loro, ~100 ms to load) is loaded only when two sessions actually collide.
   * @default {@link raiseModuleEscalation}
   */
  readonly escalate?: (input: {
    store: ContextStore;
    subjectId: string;
    module: string;
    holders: readonly [string, string];
  }) => Promise<void>;
}

/** One file an edit touches, as the hooks judge it. */
export interface FileVerdict {
  /** The file's path relative to the project root (`/` separators); absolute when outside it. */
  readonly path: string;
  /** Undefined when the file is in no module (or outside the project): always allowed. */
  readonly verdict?: EditVerdict;
}

/** A project-relative path with `/`, or undefined for a file outside the project. */
export function projectPath(root: string, absolutePath: string): string | undefined {
  const path = relative(root, absolutePath);
  if (path === "" || path.startsWith("..") || isAbsolute(path)) return undefined;
  return path.split(sep).join("/");
}

/**
 * Judges each file a tool call is about to change (see `editTargets`): one store read for all.
 * A file in no module, or outside the project, gets no verdict (allowed).
 */
export async function checkEdits(
  context: EditHookContext,
  absolutePaths: readonly string[],
): Promise<FileVerdict[]> {
  const files = absolutePaths.flatMap((absolute) => {
    // Through symlinks: the file really written, and the path as given (see real-paths.ts).
    const paths = projectPathsOf(context.root, absolute);
    // Outside the project: no module can hold it (listed with its absolute path).
    if (paths.length === 0) return [{ path: absolute, match: undefined }];
    return paths.map((path) => ({ path, match: moduleOf(path, context.project.modules) }));
  });
  if (!files.some((file) => file.match !== undefined)) {
    return files.map((file) => ({ path: file.path }));
  }
  const modules = [...new Set(files.flatMap((file) => (file.match ? [file.match.module] : [])))];
  let facts = await readFacts(context, modules);
  // A resolution stored but not compiled yet still reads as an open dispute: compile (idempotent,
  // and only on this rare path) and read again, so a settled dispute never blocks anyone.
  const disputed = files.some(
    (file) =>
      file.match &&
      registerFacts(facts.escalationMemories, file.match.module).escalations.length > 0,
  );
  if (disputed && (await compiled(context))) facts = await readFacts(context, modules);
  return files.map((file) => {
    if (!file.match) return { path: file.path };
    const register = registerFacts(facts.escalationMemories, file.match.module);
    return {
      path: file.path,
      verdict: decideEdit({
        module: file.match.module,
        path: file.path,
        agent: context.agent,
        decisions: facts.decisions,
        activity: facts.activity,
        escalations: register.escalations,
        ...(register.settlement ? { settlement: register.settlement } : {}),
        settings: context.project.hooks,
      }),
    };
  });
}

/**
 * Compiles the subject's pending episodes: true when done. A compile is a write; when another
 * process holds the store's lock it fails, and the facts already read stand (a dispute then
 * stays a refusal until the next call: the safe side).
 */
async function compiled(context: EditHookContext): Promise<boolean> {
  try {
    await context.store.compileMemories(
      context.subjectId,
      context.signal ? { signal: context.signal } : {},
    );
    return true;
  } catch (error) {
    if (context.signal?.aborted) throw error;
    return false;
  }
}

/** What a hook answers, independent of the harness's wire format. */
export interface HookAnswer {
  /** `undefined`: no objection (the harness's own permission rules apply as usual). */
  readonly decision?: "deny" | "ask";
  readonly reason?: string;
  /** Text added to the agent's context. */
  readonly context?: string;
  /** A warning shown to the person (the store was down and the edit went through). */
  readonly warning?: string;
  /**
   * Why the verdict could not be recorded (the store's write failed or ran out of time): said to
   * the person on stderr; the verdict stands as it is.
   */
  readonly recordFailure?: string;
  readonly files: readonly FileVerdict[];
}

/** The worst of the files' verdicts: one refused file refuses the whole call. */
function combine(files: readonly FileVerdict[]): Omit<HookAnswer, "files"> {
  const verdicts = files.flatMap((file) => (file.verdict ? [file.verdict] : []));
  const refused = verdicts.filter((verdict) => verdict.decision !== "allow");
  if (refused.length > 0) {
    return {
      decision: refused.some((verdict) => verdict.decision === "deny") ? "deny" : "ask",
      reason: refused.map((verdict) => verdict.reason).join("\n"),
    };
  }
  const context = verdicts
    .map((verdict) => unreadContext(verdict.module, verdict.unread))
    .filter((part): part is string => part !== undefined)
    .join("\n");
  return context ? { context } : {};
}

/**
 * `PreToolUse`: judges the files the call would change; records each refused one, so that
 * `watch` shows who was denied what. The verdict is final before anything is written: a record
 * that fails leaves it as it is, with `recordFailure` saying why.
 */
export async function preToolUse(context: EditHookContext, input: HookInput): Promise<HookAnswer> {
  const answer = await judgeToolUse(context, input);
  try {
    await recordRefusals(context, input.toolName ?? "tool", answer.files);
  } catch (error) {
    return { ...answer, recordFailure: messageOf(error) };
  }
  return answer;
}

/** `PreToolUse`'s verdict alone: the files the call would change, judged; nothing written. */
export async function judgeToolUse(
  context: EditHookContext,
  input: HookInput,
): Promise<HookAnswer> {
  const targets = editTargets(input.toolName, input.toolInput, input.cwd ?? context.root);
  if (targets.length === 0) return { files: [] };
  const files = await checkEdits(context, targets);
  return { ...combine(files), files };
}

/**
 * `PostToolUse`: records the edit as this session's claim on each module it touched (expiring
 * after `hooks.claimMinutes`). When another session holds a live claim on the same module, the
 * two edited it concurrently: the module's register in the shared state gets both claims, written
 * as two replicas that had not seen each other's, so the shared state raises one escalation for a
 * person to settle — what two Coders claiming one module do — unless one is open already.
 * `written`: the files (absolute) the call really wrote, when known.
 */
export async function postToolUse(
  context: EditHookContext,
  input: HookInput,
  written?: readonly string[],
): Promise<HookAnswer> {
  // What the call really wrote when known (a Bash call's working-tree diff), else what it names.
  const targets =
    written ?? editTargets(input.toolName, input.toolInput, input.cwd ?? context.root);
  const modules = new Map<string, string>();
  for (const absolute of targets) {
    for (const path of projectPathsOf(context.root, absolute)) {
      const match = moduleOf(path, context.project.modules);
      if (match && !modules.has(match.module)) modules.set(match.module, path);
    }
  }
  if (modules.size === 0) return { files: [] };
  const options = context.signal ? { signal: context.signal } : {};
  for (const [module, path] of modules) {
    await context.store.createEpisode(
      claimEpisode({
        subjectId: context.subjectId,
        agent: context.agent,
        module,
        path,
        tool: input.toolName ?? "tool",
      }),
      options,
    );
  }
  await context.store.compileMemories(editsSubjectOf(context.subjectId), options);
  // Read after writing: of two sessions recording at the same moment, the later read sees both
  // claims (a read before the write could let both miss each other). Another session's claim
  // that is live now was made while this one was editing too.
  const after = await readFacts(context, [...modules.keys()]);
  const notes: string[] = [];
  const escalate = context.escalate ?? raiseModuleEscalation;
  for (const module of modules.keys()) {
    const register = registerFacts(after.escalationMemories, module);
    const others = after.activity.claims.filter(
      (claim) =>
        claim.module === module &&
        !sameLine(claim.agent, context.agent) &&
        !(register.settlement && claim.at <= register.settlement.at),
    );
    const other = others[0];
    if (other === undefined) continue;
    if (register.escalations.length === 0) {
      await escalate({
        store: context.store,
        subjectId: context.subjectId,
        module,
        holders: [other.agent, context.agent],
      });
    }
    notes.push(
      `shared-ctx: session ${other.agent} edited module ${module} too (${other.description}). The two edits were concurrent: a person has been asked to settle who holds ${module} (escalation on ${modulesNamespace}/${module}). Stop editing ${module} until it is settled.`,
    );
  }
  return { ...(notes.length > 0 ? { context: notes.join("\n") } : {}), files: [] };
}

/** What `SessionStart` tells a session: the active decisions, open disputes, held modules. */
export async function sessionSummary(
  context: EditHookContext,
): Promise<{ answer: HookAnswer; decisions: number }> {
  const facts = await readFacts(context);
  const lines: string[] = [];
  const decisions = [...facts.decisions].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
  if (decisions.length > 0) {
    lines.push(`shared-ctx: subject ${context.subjectId}: active decisions (newest first):`);
    for (const memory of decisions.slice(0, shownAtStart)) {
      const decision = decisionRef(memory);
      const modules = context.project.modules
        .filter((module) => {
          const stance = stanceOn(memory, module.name);
          return stance !== undefined;
        })
        .map((module) => module.name);
      lines.push(
        `- ${decision.author} (${decision.at.slice(0, 16).replace("T", " ")} UTC)${modules.length > 0 ? ` on ${modules.join(", ")}` : decision.target ? ` on ${decision.target}` : ""}: ${decision.content}`,
      );
    }
    // Never silently dropped: the edit hooks still weigh them all, and the agent can list them.
    if (facts.moreDecisions) {
      lines.push(
        "- … and older decisions, not listed here (still enforced): check_shared_decisions with a target in its task lists every decision on it",
      );
    }
  }
  const disputes = facts.escalationMemories.filter(
    (memory) => memory.metadata.episodeType === "escalation",
  );
  if (disputes.length > 0) {
    lines.push("shared-ctx: open disputes (a person settles them):");
    for (const memory of disputes) lines.push(`- ${memory.content}`);
  }
  const holders = facts.activity.claims.filter((claim) => !sameLine(claim.agent, context.agent));
  if (holders.length > 0) {
    lines.push("shared-ctx: modules other sessions are editing now:");
    for (const claim of holders) lines.push(`- ${claim.module}: ${claim.description}`);
  }
  if (lines.length > 0) {
    lines.push(
      "Edits of files in a retired, disputed or held module are refused by the shared-ctx hook; its reason says what to do instead.",
    );
  }
  return {
    answer: { ...(lines.length > 0 ? { context: lines.join("\n") } : {}), files: [] },
    decisions: decisions.length,
  };
}

/**
 * `SessionStart`: the subject's active decisions and open disputes, as context for the session,
 * recorded as shown (a later edit's context then lists only decisions published since). What the
 * session is told is given even when its record fails (`recordFailure` says why).
 */
export async function sessionStart(
  context: EditHookContext,
  input: HookInput,
): Promise<HookAnswer> {
  const { answer, decisions } = await sessionSummary(context);
  try {
    await recordSessionStart(context, input, decisions);
  } catch (error) {
    if (context.signal?.aborted) throw error;
    return { ...answer, recordFailure: messageOf(error) };
  }
  return answer;
}

/** Records that the session was told `decisions` decisions at its start. */
export async function recordSessionStart(
  context: EditHookContext,
  input: HookInput,
  decisions: number,
): Promise<void> {
  const options = context.signal ? { signal: context.signal } : {};
  await context.store.createEpisode(
    sessionEpisode({
      subjectId: context.subjectId,
      agent: context.agent,
      source: input.source ?? "startup",
      decisions,
    }),
    options,
  );
  await context.store.compileMemories(editsSubjectOf(context.subjectId), options);
}
