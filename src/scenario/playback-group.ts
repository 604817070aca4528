/**
 * Runs shown side by side play in step: a paced clock may not jump past a moment another run of
 * its group has not reached yet. Without it, a run whose store answers slowly (its calls take real
 * time, never scenario time) falls behind the other on screen, and the live comparison misleads.
 * It only delays playback; each run's events stay the same.
 */

interface MemberState {
  /** The member's scenario time. */
  time: number;
  /** Doing work that takes no scenario time (a store call): it may still act at `time`. */
  busy: boolean;
  /** When idle: the time it wants to jump to next (Infinity: nothing left to play). */
  nextDue: number;
}

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
  const members = new Map<symbol, MemberState>();
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
      members.set(id, { time: 0, busy: false, nextDue: 0 });
      const update = (state: MemberState) => {
        members.set(id, state);
        notify();
      };
      return {
        busy: (time) => update({ time, busy: true, nextDue: time }),
        idle: (time, due) => update({ time, busy: false, nextDue: due }),
        mayJumpTo: (due) => {
          for (const [other, state] of members) {
            if (other === id) continue;
            if (state.busy ? state.time < due : state.nextDue < due) return false;
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
