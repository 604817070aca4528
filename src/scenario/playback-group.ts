/**
 * Runs shown side by side play in step: a paced clock may not jump past a moment another run of
 * its group has not reached yet. Without it, a run whose store answers slowly (its calls take real
 * time, never scenario time) falls behind the other on screen, and the live comparison misleads.
 * It only delays playback; each run's events stay the same.
 */

/**
 * The earliest scenario time at which a member may still act: its time while busy (work that
 * takes no scenario time, a store call, may still act then), its next timer while idle (Infinity:
 * nothing left to play). Both hold a jump back the same way, so one number is all a member needs.
 */
type HeldAt = number;

/** One run's place in a {@link PlaybackGroup}. */
export interface PlaybackMember {
  /** Working at `time` (store or model calls in flight). */
  busy(time: number): void;
  /** Waiting at `time` for its next timer at `due` (Infinity when there is none). */
  idle(time: number, due: number): void;
  /** Whether no other member is behind `due`. */
  mayJumpTo(due: number): boolean;
  /** Resolves at the next change of any member. */
  changed(): Promise<void>;
  /** The run is over: it no longer holds anyone back. */
  leave(): void;
}

/** Runs that play in step. */
export interface PlaybackGroup {
  join(): PlaybackMember;
}

/** A group whose members play in step. */
export function createPlaybackGroup(): PlaybackGroup {
  const members = new Map<symbol, HeldAt>();
  let wake: () => void = () => undefined;
  let changed = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const notify = () => {
    const release = wake;
    changed = new Promise<void>((resolve) => {
      wake = resolve;
    });
    release();
  };
  return {
    join: () => {
      const id = Symbol("run");
      members.set(id, 0);
      const update = (heldAt: HeldAt) => {
        members.set(id, heldAt);
        notify();
      };
      return {
        busy: (time) => update(time),
        idle: (_time, due) => update(due),
        mayJumpTo: (due) => {
          for (const [other, heldAt] of members) {
            if (other === id) continue;
            if (heldAt < due) return false;
          }
          return true;
        },
        changed: () => changed,
        leave: () => {
          members.delete(id);
          notify();
        },
      };
    },
  };
}
