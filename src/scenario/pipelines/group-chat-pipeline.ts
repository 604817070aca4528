import { isOn, type RunAblation, type UnstampedEvent } from "../../agents/agent-runtime.js";
import type { BuildResult, KnownDecision } from "../../agents/brain.js";
import {
  type Authority,
  compareAuthority,
  defaultAuthority,
  mayOverrule,
} from "../../context/authority.js";
import type { BusMessage, MessageBus } from "../../context/message-bus.js";
import type {
  Coordination,
  InvalidationNotice,
  KnownState,
} from "../../coordination/coordination.js";
import {
  activeDecisions,
  type DecisionMessage,
  decisionOf,
  disagreementsIn,
  firstClaims,
  resultOf,
  uniqueById,
} from "./message-pipeline.js";
import { estimateTokens, resultReport } from "./read-tokens.js";
import { highestAuthority } from "./statewave/read-context.js";
import { bearingOn, moduleOfTask } from "./task-modules.js";

/** Options of {@link createGroupChatCoordination}. */
export interface GroupChatCoordinationOptions {
  bus: MessageBus;
  emit(event: UnstampedEvent): void;
  /** Scenario milliseconds since the run started. */
  now(): number;
  /** Module -> the modules it depends on: a message about one bears on work on the others. */
  dependsOn?: ReadonlyMap<string, readonly string[]>;
  /** Mechanisms switched off (the same names as the shared context's). @default none */
  ablation?: RunAblation;
}

/** Who answers claims: not an agent of the team, a bot in the chat that grants the first. */
export const claimCoordinatorId = "claim-coordinator";

const retiringValues = new Set(["deprecate", "replace"]);

interface Watcher {
  agentId: string;
  module: string;
  onInvalid(notice: InvalidationNotice): void;
}

/**
 * The strongest message passing we can build, mechanism by mechanism, under the names the shared
 * context's mechanisms carry (each can be switched off alone, `ablation`):
 * - `read-before-act`: every message goes to every agent; an agent reads its inbox before acting.
 * - `bounded context` (filtered reading): a read before a module takes only the messages that
 *   name it or a module it depends on; a planning read takes the decisions; results are not read.
 * - `history for a late joiner` (transcript replay): a joiner gets every message sent before it.
 * - `mid-build invalidation` (a bus listener): a decision that retires the module an agent is
 *   working on (or one it depends on) interrupts the work as it is sent.
 * - `atomic claim` (a first-come coordinator): before building, an agent re-reads its inbox for
 *   claims, then asks the coordinator, which grants the first claim on a module and refuses the rest.
 * - `dispute surfaced` (contradictions flagged): two standing decisions that disagree are shown
 *   as a dispute, not as two facts.
 * What it has no way to do without becoming a shared store is the shared context's to show.
 */
export function createGroupChatCoordination(options: GroupChatCoordinationOptions): Coordination {
  const { bus, emit, now } = options;
  const ablation = options.ablation ?? {};
  const dependsOn = options.dependsOn ?? new Map<string, readonly string[]>();
  const members: string[] = [];
  const joinedAt = new Map<string, number>();
  /** Every message said to the room, in order: what a joiner is replayed. */
  const transcript: Array<Omit<BusMessage, "sequence" | "to">> = [];
  const lastRead = new Map<string, DecisionMessage[]>();
  const decisionCounts = new Map<string, number>();
  /** Each agent's own decisions so far: a later one on the same target overrules them. */
  const ownDecisions = new Map<
    string,
    Array<{ id: string; target: string; authority?: Authority }>
  >();
  const holders = new Map<string, string>();
  const watchers = new Set<Watcher>();
  /** Agent -> the last bus message it had received when it restarted: it remembers none of those. */
  const forgotten = new Map<string, number>();
  const restarted = new Set<string>();
  const inboxOf = (agentId: string): BusMessage[] =>
    bus.inbox(agentId).filter((message) => message.sequence > (forgotten.get(agentId) ?? 0));

  const say = (
    from: string,
    topic: string,
    content: string,
    data: Record<string, string | number>,
  ) => {
    transcript.push({ from, topic, content, data });
    // A chat shows its author what it said: its own decisions are part of what it reads.
    if (topic === "decision") bus.send({ from, to: from, topic, content, data });
    for (const to of members) {
      if (to === from) continue;
      bus.send({ from, to, topic, content, data });
      emit({ type: "message-send", from, to, content });
    }
  };
  const tell = (from: string, to: string, content: string) => {
    bus.send({ from, to, topic: "direct", content });
    emit({ type: "message-send", from, to, content });
  };

  /**
   * What a read takes from the inbox: everything, or (filtered reading) what bears on the task.
   * A restarted agent also takes its own result on the module: it no longer remembers building it.
   */
  const relevant = (agentId: string, inbox: readonly BusMessage[], task: string): BusMessage[] => {
    if (!isOn(ablation, "bounded context")) return [...inbox];
    const module = moduleOfTask(task);
    if (module === undefined) return inbox.filter((message) => message.topic === "decision");
    const names = bearingOn(module, dependsOn);
    return inbox.filter((message) => {
      const about = message.topic === "decision" ? message.data.target : message.data.module;
      const ownResult =
        message.topic === "result" && message.from === agentId && restarted.has(agentId);
      return (
        (message.topic === "decision" || message.topic === "claim" || ownResult) &&
        names.has(String(about))
      );
    });
  };

  /** Decisions an agent may use: before it joined through the transcript, after through reads. */
  const usable = (agentId: string, decisions: readonly DecisionMessage[]) => {
    const joined = joinedAt.get(agentId) ?? 0;
    const history = isOn(ablation, "history for a late joiner");
    const fresh = isOn(ablation, "read-before-act");
    return decisions.filter((decision) => ((decision.at ?? 0) < joined ? history : fresh));
  };

  /** Whether the agent had read a decision on `decision`'s target of higher authority. */
  const outranked = (agentId: string, decision: KnownDecision) =>
    (lastRead.get(agentId) ?? []).some(
      (known) =>
        known.target === decision.target &&
        compareAuthority(authorityOf(known), authorityOf(decision)) > 0,
    );

  const interruptWatchers = (decision: KnownDecision & { id: string }) => {
    if (!retiringValues.has(decision.value)) return;
    for (const watcher of [...watchers]) {
      if (watcher.agentId === decision.by) continue;
      if (!bearingOn(watcher.module, dependsOn).has(decision.target)) continue;
      if (outranked(watcher.agentId, decision)) continue;
      // The listener hands the agent the one message that contradicts its work: a read of its own.
      const line = `${decision.by}: ${decision.content}`;
      emit({
        type: "context-read",
        agentId: watcher.agentId,
        task: `Build module ${watcher.module}`,
        memoryIds: [],
        decisions: [line],
        decisionIds: [decision.id],
        disputes: [],
        tokens: estimateTokens(line),
        source: "inbox",
      });
      watcher.onInvalid({
        reason: `deprecated by ${decision.by}: ${decision.content}`,
        by: decision.by,
        ...(standsInDispute(watcher.agentId, watcher.module) ? { disputed: true } : {}),
      });
    }
  };

  /**
   * Contradictions flagged reach work in flight too: when the retiring decision stands against
   * another that its author had not read (both still stand, in the watcher's inbox), the listener
   * says so, and the work is held for the lead's ruling instead of cut short.
   */
  const standsInDispute = (agentId: string, module: string): boolean => {
    if (!isOn(ablation, "dispute surfaced")) return false;
    const known = usable(
      agentId,
      uniqueById(
        inboxOf(agentId)
          .map(decisionOf)
          .filter((decision): decision is DecisionMessage => decision !== undefined),
      ),
    );
    const bearing = bearingOn(module, dependsOn);
    return disagreementsIn(activeDecisions(known)).some((dispute) => bearing.has(dispute.target));
  };

  return {
    join: (agentId) => {
      if (members.includes(agentId)) return;
      members.push(agentId);
      joinedAt.set(agentId, Math.round(now()));
      if (!isOn(ablation, "history for a late joiner")) return;
      for (const said of transcript) {
        if (said.from !== agentId) bus.send({ ...said, to: agentId });
      }
    },
    // A chat client that restarts fetches the room's history again: the whole transcript, its
    // own messages too (that is how it learns what it built), however long the history is.
    restart: async (agentId) => {
      forgotten.set(agentId, bus.all().length);
      lastRead.delete(agentId);
      restarted.add(agentId);
      joinedAt.set(agentId, Math.round(now()));
      if (!isOn(ablation, "history for a late joiner")) return;
      for (const said of transcript) bus.send({ ...said, to: agentId });
    },
    read: async (agentId, task): Promise<KnownState> => {
      const inbox = inboxOf(agentId);
      const taken = relevant(agentId, inbox, task);
      const inInbox = new Set(
        inbox.flatMap((message) => (message.topic === "decision" ? [String(message.data.id)] : [])),
      );
      const received = usable(
        agentId,
        uniqueById(
          taken
            .map(decisionOf)
            .filter((decision): decision is DecisionMessage => decision !== undefined),
        ),
      );
      lastRead.set(agentId, uniqueById([...(lastRead.get(agentId) ?? []), ...received]));
      const claims = isOn(ablation, "read-before-act") ? firstClaims(taken) : {};
      // As on the store: a decision outranked on its target is not acted on (nor disputed over).
      const decisions = highestAuthority(activeDecisions(received));
      const disputes = isOn(ablation, "dispute surfaced") ? disagreementsIn(decisions) : [];
      const tokens = estimateTokens(
        taken.map((message) => `${message.from}: ${message.content}`).join("\n"),
      );
      emit({
        type: "context-read",
        agentId,
        task,
        memoryIds: [],
        decisions: decisions.map((decision) => `${decision.by}: ${decision.content}`),
        decisionIds: decisions.flatMap((decision) =>
          decision.id === undefined ? [] : [decision.id],
        ),
        disputes: disputes.map(
          (dispute) =>
            `${dispute.target}: ${dispute.contenders.map((contender) => `${contender.agentId} says ${contender.value}`).join(" vs ")}`,
        ),
        tokens,
        // Filtered reading says what it left out: the decisions in the inbox it did not take.
        decisionsLeftOut: Math.max(0, inInbox.size - received.length),
        source: "inbox",
      });
      const ownBuilds = restarted.has(agentId)
        ? taken.flatMap((message) =>
            message.topic === "result" && message.from === agentId
              ? [String(message.data.module)]
              : [],
          )
        : undefined;
      return { decisions, disputes, claims, tokens, ...(ownBuilds ? { ownBuilds } : {}) };
    },
    publishDecision: async (agentId, decision, given) => {
      const count = (decisionCounts.get(agentId) ?? 0) + 1;
      decisionCounts.set(agentId, count);
      const id = given ?? `${agentId}#${count}`;
      const at = Math.round(now());
      // What its author had read on the target, and what it had said on it itself before.
      const overrules = [
        ...new Set(
          [...(lastRead.get(agentId) ?? []), ...(ownDecisions.get(agentId) ?? [])]
            .filter((known) => known.target === decision.target)
            // Authority said in the messages: an agent's later word never overrules a person's.
            .filter((known) => mayOverrule(authorityOf(decision), authorityOf(known)))
            .map((known) => known.id),
        ),
      ];
      ownDecisions.set(agentId, [
        ...(ownDecisions.get(agentId) ?? []),
        {
          id,
          target: decision.target,
          ...(decision.authority !== undefined ? { authority: decision.authority } : {}),
        },
      ]);
      say(agentId, "decision", decision.content, {
        id,
        target: decision.target,
        value: decision.value,
        at,
        supersedes: overrules.join(","),
        ...(decision.by !== undefined ? { replacement: decision.by } : {}),
        ...(decision.authority !== undefined ? { authority: decision.authority } : {}),
      });
      if (isOn(ablation, "mid-build invalidation")) {
        interruptWatchers({ ...decision, id, by: agentId, at });
      }
    },
    claim: async (agentId, module) => {
      if (isOn(ablation, "atomic claim")) {
        const seen = inboxOf(agentId).find(
          (message) => message.topic === "claim" && message.data.module === module,
        );
        const holder = seen?.from ?? holders.get(module);
        tell(agentId, claimCoordinatorId, `May I take ${module}?`);
        if (holder !== undefined && holder !== agentId) {
          tell(claimCoordinatorId, agentId, `${module} is taken by ${holder}`);
          return { granted: false, reason: `already claimed by ${holder}`, causedBy: holder };
        }
        holders.set(module, agentId);
        tell(claimCoordinatorId, agentId, `${module} is yours`);
      }
      emit({ type: "module-claim", agentId, module });
      say(agentId, "claim", `Taking ${module}`, { module });
      return { granted: true };
    },
    watchModule: (agentId, module, onInvalid) => {
      if (!isOn(ablation, "mid-build invalidation")) return () => undefined;
      const watcher: Watcher = { agentId, module, onInvalid };
      watchers.add(watcher);
      return () => {
        watchers.delete(watcher);
      };
    },
    reportResult: async (agentId, result) => {
      say(agentId, "result", resultReport(result.module, agentId), {
        module: result.module,
        tokens: result.tokens,
        ms: result.ms,
      });
    },
    collectForReview: async (agentId) => {
      const inbox = inboxOf(agentId);
      const decisions = activeDecisions(
        uniqueById(
          inbox
            .map(decisionOf)
            .filter((decision): decision is DecisionMessage => decision !== undefined),
        ),
      );
      return {
        decisions,
        results: inbox.map(resultOf).filter((item): item is BuildResult => item !== undefined),
        disputes: disagreementsIn(decisions),
      };
    },
    arbitrate: async (_agentId, _choose, until) => {
      await until;
    },
    close: async () => {
      watchers.clear();
    },
  };
}

/** A decision's authority: the one its message says, else an agent's. */
function authorityOf(decision: { authority?: Authority }): Authority {
  return decision.authority ?? defaultAuthority;
}
