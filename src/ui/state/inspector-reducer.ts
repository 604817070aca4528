import { checkExhaustive } from "../../errors.js";

/** What the timeline inspector shows, derived only from keys and the row count. */
export interface InspectorState {
  /** First line shown. */
  readonly scroll: number;
  /** Index into the run's agents of the one shown alone, or -1 for all. */
  readonly agentIndex: number;
  /** The search applied to the rows ("" for none). */
  readonly search: string;
  /** What is being typed after `/`, or undefined when not searching. */
  readonly draft?: string;
  /** True while following: the view stays at the newest line as rows arrive. */
  readonly follow: boolean;
}

/** Keys and updates the inspector handles. `maxScroll` is the last valid first line. */
export type InspectorAction =
  | { readonly type: "scroll"; readonly delta: number; readonly maxScroll: number }
  | { readonly type: "scroll-to"; readonly line: number; readonly maxScroll: number }
  | { readonly type: "agent-cycle"; readonly count: number }
  | { readonly type: "search-start" }
  | { readonly type: "search-type"; readonly text: string }
  | { readonly type: "search-erase" }
  | { readonly type: "search-apply" }
  | { readonly type: "search-cancel" }
  | { readonly type: "follow-toggle"; readonly maxScroll: number }
  | { readonly type: "rows-change"; readonly maxScroll: number };

/** The inspector as it opens: everything, from the top (or following, from the end). */
export function initialInspectorState(follow = false): InspectorState {
  return { scroll: 0, agentIndex: -1, search: "", follow };
}

function clamp(value: number, maxScroll: number): number {
  return Math.min(Math.max(value, 0), Math.max(0, maxScroll));
}

/** The inspector's state machine. Pure. */
export function inspectorReducer(state: InspectorState, action: InspectorAction): InspectorState {
  switch (action.type) {
    case "scroll": {
      const scroll = clamp(state.scroll + action.delta, action.maxScroll);
      // Scrolling up stops following; reaching the end again does not restart it (f does).
      return { ...state, scroll, follow: state.follow && action.delta >= 0 };
    }
    case "scroll-to":
      return {
        ...state,
        scroll: clamp(action.line, action.maxScroll),
        follow: state.follow && action.line >= action.maxScroll,
      };
    case "agent-cycle": {
      // -1 (all agents), 0, 1, … count-1, then all again.
      const next = state.agentIndex + 1 >= action.count ? -1 : state.agentIndex + 1;
      return { ...state, agentIndex: next, scroll: 0 };
    }
    case "search-start":
      return { ...state, draft: "" };
    case "search-type":
      return state.draft === undefined ? state : { ...state, draft: state.draft + action.text };
    case "search-erase":
      return state.draft === undefined ? state : { ...state, draft: state.draft.slice(0, -1) };
    case "search-apply":
      return { ...state, search: state.draft ?? state.search, draft: undefined, scroll: 0 };
    case "search-cancel":
      return { ...state, draft: undefined };
    case "follow-toggle":
      return state.follow
        ? { ...state, follow: false }
        : { ...state, follow: true, scroll: clamp(action.maxScroll, action.maxScroll) };
    case "rows-change":
      return {
        ...state,
        scroll: state.follow
          ? clamp(action.maxScroll, action.maxScroll)
          : clamp(state.scroll, action.maxScroll),
      };
    default:
      return checkExhaustive(action);
  }
}
