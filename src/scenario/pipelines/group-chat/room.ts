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

/**
 * The chat room: who is in it, when each (re)joined, and the transcript, everything said to the
 * room in order. History for a late joiner is the transcript replayed: to a joiner when it joins,
 * to a restarted client when it fetches the room's history again.
 */
export class ChatRoom {
  readonly #options: ChatRoomOptions;
  readonly #members: string[] = [];
  readonly #joinedAt = new Map<string, number>();
  readonly #transcript: Said[] = [];

  constructor(options: ChatRoomOptions) {
    this.#options = options;
  }

  /** When `agentId` last joined (or restarted), in scenario milliseconds. */
  joinedAt(agentId: string): number {
    return this.#joinedAt.get(agentId) ?? 0;
  }

  /** A member joins, once: from now on it hears the room, and it is replayed what it missed. */
  admit(agentId: string): void {
    if (this.#members.includes(agentId)) return;
    this.#members.push(agentId);
    this.#joinedAt.set(agentId, Math.round(this.#options.now()));
    this.#replayTo(agentId, { ownToo: false });
  }

  /**
   * A chat client that restarts fetches the room's history again: the whole transcript, its own
   * messages too (that is how it learns what it built), however long the history is.
   */
  readmit(agentId: string): void {
    this.#joinedAt.set(agentId, Math.round(this.#options.now()));
    this.#replayTo(agentId, { ownToo: true });
  }

  /** History for a late joiner: every message said before, sent to `agentId` again. */
  #replayTo(agentId: string, { ownToo }: { ownToo: boolean }): void {
    if (!isOn(this.#options.ablation, "history for a late joiner")) return;
    for (const said of this.#transcript) {
      if (ownToo || said.from !== agentId) this.#options.bus.send({ ...said, to: agentId });
    }
  }

  /** Says something to the room: every other member receives it, and the transcript keeps it. */
  say(from: string, topic: string, content: string, data: Record<string, string | number>): void {
    const { bus, emit } = this.#options;
    this.#transcript.push({ from, topic, content, data });
    // A chat shows its author what it said: its own decisions are part of what it reads.
    if (topic === "decision") bus.send({ from, to: from, topic, content, data });
    for (const to of this.#members) {
      if (to === from) continue;
      bus.send({ from, to, topic, content, data });
      emit({ type: "message-send", from, to, content });
    }
  }

  /** A direct message, outside the room (and its transcript). */
  tell(from: string, to: string, content: string): void {
    this.#options.bus.send({ from, to, topic: "direct", content });
    this.#options.emit({ type: "message-send", from, to, content });
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
