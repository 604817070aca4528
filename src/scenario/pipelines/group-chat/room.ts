import { isOn, type RunAblation, type UnstampedEvent } from "../../../agents/agent-runtime.js";
import type { BusMessage, MessageBus } from "../../../context/message-bus.js";
import type { AgentMemories } from "../message-memory.js";

/** A message as said to the room, before it is addressed to anyone. */
type Said = Omit<BusMessage, "sequence" | "to">;

/** What {@link ChatRoom} needs. */
export interface ChatRoomOptions {
  bus: MessageBus;
  emit(event: UnstampedEvent): void;
  /** Scenario milliseconds since the run started. */
  now(): number;
  ablation: RunAblation;
}

/** What a member subscribes to: every message (`*`), every decision, or one module's channel. */
export type Subscription = "*" | "decisions" | { module: string };

/** The module a message is about (a decision's target, a claim's or a result's module). */
function aboutOf(said: Said): string | undefined {
  const about = said.topic === "decision" ? said.data.target : said.data.module;
  return about === undefined ? undefined : String(about);
}

/**
 * The chat room: who is in it, when each (re)joined, and the transcript, everything said to the
 * room in order. History for a late joiner is the transcript replayed: to a joiner when it joins,
 * to a restarted client when it fetches the room's history again.
 *
 * Topic routing (a filter before delivery, switchable: `topic routing`): a message reaches only
 * the members subscribed to what it is about, one channel per module, as a competent team splits
 * a busy chat. Planners follow every decision, the Reviewer everything, a Coder the channels of
 * the modules it works on (joined at its read before each module, `follow`): joining a channel
 * delivers what was said there since the member joined the room (and, with history for a late
 * joiner, before). Switched off, every member receives every message.
 */
export class ChatRoom {
  readonly #options: ChatRoomOptions;
  readonly #members: string[] = [];
  readonly #joinedAt = new Map<string, number>();
  readonly #transcript: Array<Said & { at: number }> = [];
  /** Member -> what it follows (topic routing). */
  readonly #follows = new Map<string, Subscription[]>();
  /** Member -> the transcript entries delivered to it since it last (re)joined. */
  readonly #delivered = new Map<string, Set<number>>();

  constructor(options: ChatRoomOptions) {
    this.#options = options;
  }

  /** When `agentId` last joined (or restarted), in scenario milliseconds. */
  joinedAt(agentId: string): number {
    return this.#joinedAt.get(agentId) ?? 0;
  }

  /**
   * A member joins, once: from now on it hears the room (what it follows), and it is replayed
   * what it missed. @param follows what it follows from the start (topic routing) @default nothing
   */
  admit(agentId: string, follows: readonly Subscription[] = []): void {
    if (this.#members.includes(agentId)) return;
    this.#members.push(agentId);
    this.#joinedAt.set(agentId, Math.round(this.#options.now()));
    this.#follows.set(agentId, [...follows]);
    this.#delivered.set(agentId, new Set());
    this.#replayTo(agentId, { ownToo: false });
  }

  /**
   * A chat client that restarts fetches the room's history again: the whole transcript of what it
   * follows, its own messages too (that is how it learns what it built), however long it is.
   * Its channel subscriptions died with it, save what its role follows from the start.
   */
  readmit(agentId: string): void {
    this.#joinedAt.set(agentId, Math.round(this.#options.now()));
    this.#follows.set(
      agentId,
      (this.#follows.get(agentId) ?? []).filter((follow) => typeof follow === "string"),
    );
    this.#delivered.set(agentId, new Set());
    this.#restarted.add(agentId);
    this.#replayTo(agentId, { ownToo: true });
  }

  readonly #restarted = new Set<string>();

  /**
   * Topic routing: `agentId` joins the channels of `modules`; what was said there and not yet
   * delivered to it is delivered now (before it joined the room: only with history for a late
   * joiner).
   */
  follow(agentId: string, modules: Iterable<string>): void {
    if (!this.#routing()) return;
    const follows = this.#follows.get(agentId) ?? [];
    for (const module of modules) {
      if (!follows.some((follow) => typeof follow === "object" && follow.module === module)) {
        follows.push({ module });
      }
    }
    this.#follows.set(agentId, follows);
    this.#replayTo(agentId, { ownToo: this.#restarted.has(agentId) });
  }

  /** Replays to `agentId` what it follows and was not delivered since it (re)joined. */
  #replayTo(agentId: string, { ownToo }: { ownToo: boolean }): void {
    const history = isOn(this.#options.ablation, "history for a late joiner");
    const joined = this.joinedAt(agentId);
    const delivered = this.#delivered.get(agentId) ?? new Set<number>();
    this.#transcript.forEach((said, index) => {
      if (delivered.has(index) || (!ownToo && said.from === agentId)) return;
      // Said before it (re)joined: history; said since: routing held it back until it followed.
      if (said.at < joined ? !history : !this.#routing()) return;
      if (!this.#hears(agentId, said)) return;
      delivered.add(index);
      const { at: _at, ...message } = said;
      this.#options.bus.send({ ...message, to: agentId });
    });
    this.#delivered.set(agentId, delivered);
  }

  /** Says something to the room: each member it reaches receives it, and the transcript keeps it. */
  say(from: string, topic: string, content: string, data: Record<string, string | number>): void {
    const { bus, emit } = this.#options;
    const index = this.#transcript.length;
    const said = { from, topic, content, data, at: Math.round(this.#options.now()) };
    this.#transcript.push(said);
    // A chat shows its author what it said: its own decisions are part of what it reads.
    if (topic === "decision") bus.send({ from, to: from, topic, content, data });
    for (const to of this.#members) {
      if (to === from || !this.#hears(to, said)) continue;
      this.#delivered.get(to)?.add(index);
      bus.send({ from, to, topic, content, data });
      emit({ type: "message-send", from, to, content });
    }
  }

  /**
   * The room's process restarts: an in-memory room loses its transcript (no history to replay
   * to anyone from now on) and the channels its members had joined (each rejoins at its next
   * read; what a role follows from the start is set again on reconnecting). Returns how many
   * messages were lost. A room that persisted its transcript would be a durable log: a store.
   */
  forget(): number {
    const lost = this.#transcript.length;
    this.#transcript.length = 0;
    for (const [agentId, follows] of this.#follows) {
      this.#follows.set(
        agentId,
        follows.filter((follow) => typeof follow === "string"),
      );
      this.#delivered.set(agentId, new Set());
    }
    return lost;
  }

  /** How many decisions were said to the room (a decision said twice is one). */
  decisionCount(): number {
    return new Set(
      this.#transcript.flatMap((said) => (said.topic === "decision" ? [String(said.data.id)] : [])),
    ).size;
  }

  /** A direct message, outside the room (and its transcript). */
  tell(from: string, to: string, content: string): void {
    this.#options.bus.send({ from, to, topic: "direct", content });
    this.#options.emit({ type: "message-send", from, to, content });
  }

  #routing(): boolean {
    return isOn(this.#options.ablation, "topic routing");
  }

  /** Whether `said` reaches `agentId`: always without topic routing, else by what it follows. */
  #hears(agentId: string, said: Said): boolean {
    if (!this.#routing()) return true;
    const about = aboutOf(said);
    return (this.#follows.get(agentId) ?? []).some((follow) =>
      follow === "*"
        ? true
        : follow === "decisions"
          ? said.topic === "decision"
          : about !== undefined && follow.module === about,
    );
  }
}

/** What every mechanism of the group chat works on: the explicit state they share. */
export interface GroupChat {
  readonly emit: (event: UnstampedEvent) => void;
  /** Scenario milliseconds since the run started. */
  readonly now: () => number;
  readonly ablation: RunAblation;
  /** Module -> the modules it depends on: a message about one bears on work on the others. */
  readonly dependsOn: ReadonlyMap<string, readonly string[]>;
  readonly room: ChatRoom;
  readonly memories: AgentMemories;
}
