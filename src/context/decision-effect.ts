import type { JsonObject } from "./context-store.js";
import { StoreValidationError } from "./errors/store-validation-error.js";

/**
 * What a decision does to its target, stated explicitly so that enforcement never has to guess
 * from the wording (`metadata.effect`, copied from the episode's `payload.effect`):
 * - `retire`: the target is on its way out; nobody builds on it (its own author may still do the
 *   retiring work);
 * - `keep`: the target stays; lifts an earlier `retire`, `replace` or `freeze` of equal or lower
 *   authority;
 * - `freeze`: no edits to the target, by anyone, until a later decision lifts it;
 * - `replace`: as `retire`, pointing at what replaces it (`replacement`).
 *
 * Pure: no store, no clock.
 */

/** The effects a decision can have on its target. */
export const decisionEffects = ["retire", "keep", "freeze", "replace"] as const;

/** One of {@link decisionEffects}. */
export type DecisionEffect = (typeof decisionEffects)[number];

/** The payload and metadata key of a decision's effect. */
export const effectKey = "effect";
/** The payload and metadata key of a `replace` decision's replacement. */
export const replacementKey = "replacement";

/** Whether `value` names one of the effects exactly. */
export function isDecisionEffect(value: unknown): value is DecisionEffect {
  return typeof value === "string" && (decisionEffects as readonly string[]).includes(value);
}

/** A decision's explicit effect, read from a memory's (or an episode's) metadata or payload. */
export interface StatedEffect {
  readonly effect: DecisionEffect;
  /** For `replace`: what replaces the target. */
  readonly replacement?: string;
}

/** The effect a memory's metadata states, or undefined when it states none (or none valid). */
export function statedEffectOf(metadata: JsonObject | undefined): StatedEffect | undefined {
  const effect = metadata?.[effectKey];
  if (!isDecisionEffect(effect)) return undefined;
  const replacement = metadata?.[replacementKey];
  return typeof replacement === "string" && replacement.trim()
    ? { effect, replacement: replacement.trim() }
    : { effect };
}

/**
 * The payload fields of a decision with `effect` (and `replacement`), checked: an effect needs a
 * target to act on, `replace` needs its replacement, and a replacement belongs to `replace` only.
 * @throws StoreValidationError naming the field
 */
export function effectPayload(options: {
  effect?: DecisionEffect | undefined;
  replacement?: string | undefined;
  target?: string | undefined;
}): JsonObject {
  const { effect, target } = options;
  const replacement = options.replacement?.trim();
  if (effect === undefined) {
    if (replacement !== undefined) {
      throw new StoreValidationError("replacement", 'a replacement only with effect "replace"');
    }
    return {};
  }
  if (!isDecisionEffect(effect)) {
    throw new StoreValidationError(effectKey, `one of ${decisionEffects.join(", ")}`);
  }
  if (target === undefined || target.trim() === "") {
    throw new StoreValidationError(
      "target",
      `the module or thing the decision's ${effect} acts on`,
    );
  }
  if (effect === "replace") {
    if (!replacement) {
      throw new StoreValidationError(
        "replacement",
        'what replaces the target, with effect "replace"',
      );
    }
    return { [effectKey]: effect, [replacementKey]: replacement };
  }
  if (replacement !== undefined) {
    throw new StoreValidationError("replacement", 'a replacement only with effect "replace"');
  }
  return { [effectKey]: effect };
}
