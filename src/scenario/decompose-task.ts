/**
 * The task decomposer: splits a free-text task into per-role slices, the way a lead would hand it
 * out. Sentences that decide the architecture (deprecate, keep, replace…) go to the Planner;
 * sentences that ask for work go to the Coder, with the existing modules they touch; the Reviewer
 * checks the result against the decisions. Pure and deterministic.
 */

/** Verbs that make a sentence an architectural decision rather than work to do. */
const decisionVerbs = /^(deprecate|retire|remove|drop|sunset|phase out|keep|retain|preserve)\b/i;
const deprecationVerbs = /^(deprecate|retire|remove|drop|sunset|phase out)\b/i;
/** Verbs that ask for work; what follows them names a module. */
const buildVerbs = /^(build|implement|add|create|write|develop|make|ship)\b/i;
/** Words that carry no module identity at either end of a phrase. */
const leadingFillers = /^(the|a|an|our|its|their|new|existing)\s+/i;
const trailingFillers = /\s+(module|modules|component|components|code|package|library)$/i;

/** The per-role parts of one task. */
export interface TaskSlices {
  planner: string;
  coder: string;
  reviewer: string;
  /** Existing modules the task mentions (what it deprecates or keeps). */
  inventory: string[];
}

/** One decision read out of a sentence such as "Deprecate legacy Stripe v1 module." */
export interface SentenceDecision {
  target: string;
  value: "deprecate" | "keep";
  content: string;
}

/** Splits text into trimmed sentences (on . ! ? ; and new lines). */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?;])\s+|\n+/)
    .map((sentence) => sentence.trim().replace(/[.!?;]+$/, ""))
    .filter((sentence) => sentence.length > 0);
}

/** "legacy Stripe v1 module" -> "legacy-stripe-v1". */
export function toModuleName(phrase: string): string {
  let words = phrase.trim();
  // Strip fillers repeatedly: "the existing session module" has two.
  for (let previous = ""; previous !== words; ) {
    previous = words;
    words = words.replace(leadingFillers, "").replace(trailingFillers, "");
  }
  return words
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** The decision a sentence states, or undefined when it states none. */
export function decisionFromSentence(sentence: string): SentenceDecision | undefined {
  const verb = decisionVerbs.exec(sentence);
  if (!verb) return undefined;
  // The object of the verb, up to a clause such as "in favour of" or a comma.
  const object = sentence
    .slice(verb[0].length)
    .split(/,|\b(?:in favou?r of|replaced by|because|since|and use)\b/i)[0];
  const target = toModuleName(object ?? "");
  if (target === "") return undefined;
  const value = deprecationVerbs.test(sentence) ? "deprecate" : "keep";
  return { target, value, content: `${sentence}.` };
}

/** The module a work sentence asks for ("Build a payment service" -> "payment-service"). */
export function moduleFromSentence(sentence: string): string | undefined {
  const verb = buildVerbs.exec(sentence);
  if (!verb) return undefined;
  const object = sentence.slice(verb[0].length).split(/,|\b(?:with|using|for|that|which)\b/i)[0];
  const name = toModuleName(object ?? "");
  return name === "" ? undefined : name;
}

/** Splits a task into the Planner's, the Coder's and the Reviewer's parts. */
export function decomposeTask(task: string): TaskSlices {
  const sentences = splitSentences(task);
  const decisionSentences = sentences.filter((sentence) => decisionVerbs.test(sentence));
  const workSentences = sentences.filter((sentence) => !decisionVerbs.test(sentence));
  const inventory = [
    ...new Set(
      decisionSentences
        .map((sentence) => decisionFromSentence(sentence)?.target)
        .filter((target): target is string => target !== undefined),
    ),
  ];
  const planner =
    decisionSentences.length > 0
      ? decisionSentences.map((sentence) => `${sentence}.`).join(" ")
      : `Decide the architecture for: ${task.trim()}`;
  const work = workSentences.length > 0 ? workSentences : sentences;
  const touches =
    inventory.length > 0
      ? ` Update the existing modules it touches so they work with it: ${inventory.join(", ")}.`
      : "";
  const coder = `${work.map((sentence) => `${sentence}.`).join(" ")}${touches}`;
  const reviewer = "Review the finished work against the decisions that were made.";
  return { planner, coder, reviewer, inventory };
}
