/**
 * The task decomposer: splits a free-text task into per-role slices, the way a lead would hand it
 * out, and reads what each clause says with rules (no model). Clauses that decide the
 * architecture (deprecate, keep, replace…) go to the Planner; clauses that ask for work go to the
 * Coder; a clause that does both ("Replace A with B") goes to both. Nothing is added to a slice
 * that the task did not say. Pure and deterministic.
 *
 * What the rules understand, clause by clause (a sentence splits into clauses at ";" and at
 * ", and", "and then", "then", ", " before a verb):
 * - deprecate / retire / remove / drop / sunset / phase out / decommission / delete / get rid of X
 *   → deprecate X (and "… in favour of B" → work on B)
 * - keep / retain / preserve X, "X stays" → keep X
 * - replace A with B, A is replaced by B, swap A for B, use B instead of A → deprecate A, build B;
 *   "replace A" alone → deprecate A, build `new-A`
 * - migrate / move / switch X from A to B → deprecate `A-X`, build `B-X`; "… X to B" → deprecate X,
 *   build `B-X`; "… from A to B" → deprecate A, build B
 * - build / implement / add / create / write / develop / ship / introduce / set up X → build X
 *   ("… to replace A" / "… instead of A" also deprecates A)
 * - update / fix / refactor / extend / improve / upgrade / port / rewrite X → work on the existing X
 * - in any work clause, a mention of an existing module (one the task decides on or updates)
 *   → work on that existing module
 *
 * Module names are short nouns: articles, determiners and "new/old/existing/current" are dropped
 * ("legacy" stays: it is part of how teams name a module, as in `legacy-stripe-v1`), so are the
 * words "module", "component", "code", "package"; the name keeps the phrase's last three words
 * (English puts the head noun last).
 */

import { type ClauseRecorder, clauseRules } from "./clause-rules.js";
import {
  asSentence,
  clauseBreak,
  namesOf,
  objectOf,
  qualified,
  slug,
  stripPrefixes,
  words,
} from "./task-words.js";

/** One decision read out of a clause such as "Deprecate legacy Stripe v1 module." */
export interface SentenceDecision {
  target: string;
  value: "deprecate" | "keep";
  /** The clause it was read from, as a sentence. */
  content: string;
}

/** A module the Coder plans, with where it came from. */
export interface PlannedModule {
  module: string;
  /** `new`: the task asks for it; `existing`: an existing module the task's work mentions. */
  kind: "new" | "existing";
  /** The clause it was read from, as written. */
  clause: string;
  /** Where it came from, for people: "the task: 'Build a payment service'". */
  from: string;
}

/** What one clause says. */
export interface ClauseReading {
  decisions: SentenceDecision[];
  /** Modules to build; `implied` when a decision implies them ("in favour of B"). */
  builds: Array<{ module: string; implied: boolean }>;
  /** Existing modules the clause asks to work on (update, fix…). */
  updates: string[];
  /** Whether the clause asks for work (build or update), even if no module name came out. */
  asksForWork: boolean;
}

/** The per-role parts of one task. */
export interface TaskSlices {
  planner: string;
  coder: string;
  reviewer: string;
  /** Existing modules the task mentions (what it deprecates, keeps or updates). */
  inventory: string[];
  /** The decisions the rules read from the task, in order. */
  decisions: SentenceDecision[];
  /**
   * The Coder's module plan as the rules read it from the task's work, each with where it came
   * from; the offline brain plans exactly these from the Coder's slice.
   */
  plan: PlannedModule[];
  /** The clauses the rules read nothing from (neither a decision nor work), as written. */
  unparsed: string[];
  /** Every clause of the task, in order, with the sentence it is in and what it says. */
  clauses: ReadClause[];
}

/** One clause of a task, with the sentence it is in (0-based) and what the rules read from it. */
export interface ReadClause {
  clause: string;
  sentence: number;
  reading: ClauseReading;
}

/** Splits text into trimmed sentences (on . ! ? ; and new lines; not inside "moment.js" or "v1.2"). */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?;])\s+|\n+/)
    .map((sentence) => sentence.trim().replace(/[.!?;]+$/, ""))
    .filter((sentence) => sentence.length > 0);
}

/** Splits a sentence into clauses, each opening with its verb: "Sunset X and build Y" → two. */
export function splitClauses(sentence: string): string[] {
  return sentence
    .split(clauseBreak)
    .map((clause) => clause.trim().replace(/[.!?;,]+$/, ""))
    .filter((clause) => clause.length > 0);
}

/**
 * A clause's main part and its asides: a parenthesis ("(and retire legacy-invoices)"), what
 * follows a dash ("— keep it for now") and a "but" that opens no known verb ("but the admin panel
 * still needs it"). An aside can carry an exception or a second decision about the same module.
 */
export function splitAsides(clause: string): { main: string; asides: string[] } {
  const asides: string[] = [];
  const withoutParentheses = clause.replace(/\(([^()]*)\)/g, (_whole, inner: string) => {
    asides.push(inner);
    return " ";
  });
  const [head = "", ...dashed] = withoutParentheses.split(/\s+[—–]\s+|\s*[—–]\s*|\s+-{1,2}\s+/);
  const [main = "", ...butParts] = head.split(/,?\s+(?:but|though|although|except that)\s+/i);
  asides.push(...butParts, ...dashed);
  const clean = (text: string) =>
    text
      .trim()
      .replace(/^(?:and|or|but|also|though|although|i\.e\.|e\.g\.)\s+/i, "")
      .replace(/[.!?;,]+$/, "")
      .trim();
  return {
    main: clean(main.replace(/\s{2,}/g, " ")),
    asides: asides.map(clean).filter((aside) => aside !== ""),
  };
}

/** Reads one clause without its asides. */
function readPlainClause(
  clause: string,
  antecedent: string | undefined,
  content: string,
): ClauseReading {
  const text = stripPrefixes(clause);
  const reading: ClauseReading = { decisions: [], builds: [], updates: [], asksForWork: false };
  const record: ClauseRecorder = {
    antecedent,
    deprecate: (target) => {
      if (target !== undefined && target !== "") {
        reading.decisions.push({ target, value: "deprecate", content });
      }
    },
    keep: (target) => {
      reading.decisions.push({ target, value: "keep", content });
    },
    build: (module, implied) => {
      reading.asksForWork = true;
      if (module !== undefined && module !== "") reading.builds.push({ module, implied });
    },
    update: (module) => {
      if (!reading.updates.includes(module)) reading.updates.push(module);
    },
    replace: (old, replacement) => {
      const oldNames = namesOf(objectOf(old));
      for (const name of oldNames) record.deprecate(name);
      if (replacement !== undefined) {
        for (const name of namesOf(objectOf(replacement))) record.build(name, false);
      } else {
        // "Replace the logging library": new work, under a name distinct from the old one's.
        for (const name of oldNames) record.build(qualified("new", name), false);
      }
    },
  };
  for (const rule of clauseRules) {
    const match = rule.pattern.exec(text);
    if (match) {
      rule.read(match, record);
      break;
    }
  }
  return reading;
}

/** Whether a reading found anything: a decision or work. */
export function isUnderstood(reading: ClauseReading): boolean {
  return reading.decisions.length > 0 || reading.asksForWork || reading.builds.length > 0;
}

/**
 * Reads one clause: its decisions, the modules it asks to build, the existing ones it updates.
 * Its asides are read too, with the module the main part names as their antecedent; a later
 * decision on the same module is the exception and wins ("Deprecate legacy-auth, but … keep it
 * for now" keeps legacy-auth, for now).
 */
export function readClause(clause: string, antecedent?: string): ClauseReading {
  const content = asSentence(clause);
  const { main, asides } = splitAsides(clause);
  const reading = readPlainClause(main, antecedent, content);
  let lead =
    [
      ...reading.decisions.map((decision) => decision.target),
      ...reading.builds.map((entry) => entry.module),
      ...reading.updates,
    ][0] ?? antecedent;
  for (const aside of asides) {
    const extra = readPlainClause(aside, lead, content);
    for (const decision of extra.decisions) {
      const index = reading.decisions.findIndex((known) => known.target === decision.target);
      if (index >= 0) reading.decisions[index] = decision;
      else reading.decisions.push(decision);
    }
    reading.builds.push(
      ...extra.builds.filter(
        (entry) => !reading.builds.some((known) => known.module === entry.module),
      ),
    );
    for (const module of extra.updates) {
      if (!reading.updates.includes(module)) reading.updates.push(module);
    }
    reading.asksForWork ||= extra.asksForWork;
    lead ??= extra.decisions[0]?.target ?? extra.builds[0]?.module;
  }
  return reading;
}

/** Reads every clause of a text, in order, with its reading and the sentence it is in. */
function readClauses(text: string): ReadClause[] {
  const clauses: ReadClause[] = [];
  let antecedent: string | undefined;
  splitSentences(text).forEach((sentence, index) => {
    for (const clause of splitClauses(sentence)) {
      const reading = readClause(clause, antecedent);
      // "Add rate limiting to the public API and write docs for it": "it" is the new work.
      antecedent =
        [
          ...reading.decisions.map((decision) => decision.target),
          ...reading.updates,
          ...reading.builds.map((entry) => entry.module),
        ].at(-1) ?? antecedent;
      clauses.push({ clause, sentence: index, reading });
    }
  });
  return clauses;
}

/**
 * The decisions a slice states, one per target, in the order the targets first appear; a later
 * clause about the same target is the exception and wins ("Retire legacy-cache. Keep it until
 * March." keeps it).
 */
export function decisionsFromText(text: string): SentenceDecision[] {
  const decisions: SentenceDecision[] = [];
  for (const { reading } of readClauses(text)) {
    for (const decision of reading.decisions) {
      const index = decisions.findIndex((known) => known.target === decision.target);
      if (index >= 0) decisions[index] = decision;
      else decisions.push(decision);
    }
  }
  return decisions;
}

/** The decision a sentence states first, or undefined when it states none. */
export function decisionFromSentence(sentence: string): SentenceDecision | undefined {
  return decisionsFromText(sentence)[0];
}

/** The module a work sentence asks for first ("Build a payment service" -> "payment-service"). */
export function moduleFromSentence(sentence: string): string | undefined {
  return readClauses(sentence).flatMap(({ reading }) => reading.builds)[0]?.module;
}

/**
 * The module plan a text asks for, each with where it came from: the modules its work clauses
 * ask to build, and the existing modules (`existing`) its work clauses update or mention, in the
 * order the text gives them. A module a clause deprecates is never planned from that clause.
 */
export function planFromText(text: string, existing: readonly string[]): PlannedModule[] {
  const plan: PlannedModule[] = [];
  const clauses = readClauses(text);
  const direct = clauses.flatMap(({ reading }) =>
    reading.builds.filter((entry) => !entry.implied).map((entry) => entry.module),
  );
  const add = (module: string, kind: PlannedModule["kind"], clause: string) => {
    if (plan.some((entry) => entry.module === module)) return;
    const from =
      kind === "new"
        ? `the task: '${clause}'`
        : `an existing module the task's work mentions: '${clause}'`;
    plan.push({ module, kind, clause, from });
  };
  for (const { clause, reading } of clauses) {
    if (!reading.asksForWork && reading.builds.length === 0) continue;
    for (const { module, implied } of reading.builds) {
      // "Deprecate X in favour of JWT. Build the JWT issuer.": the named work covers the implied.
      const covered =
        implied &&
        direct.some(
          (other) => other !== module && words(module).every((word) => words(other).includes(word)),
        );
      if (!covered) add(module, existing.includes(module) ? "existing" : "new", clause);
    }
    const deprecated = new Set(reading.decisions.map((decision) => decision.target));
    const mentioned = reading.updates.filter((name) => !deprecated.has(name));
    // A name inside one this clause builds is no mention: "build a cache dashboard" ≠ "cache".
    // Nor is one inside a module it updates: "the search page" is no mention of `search`.
    const slugged = [...reading.builds.map((entry) => entry.module), ...mentioned].reduce(
      (text, module) => text.replaceAll(`-${module}-`, "-"),
      `-${slug(clause)}-`,
    );
    const mentions = existing
      .filter((name) => !deprecated.has(name) && !mentioned.includes(name))
      .map((name) => ({ name, index: slugged.indexOf(`-${name}-`) }))
      .filter((entry) => entry.index >= 0)
      .sort((a, b) => a.index - b.index)
      .map((entry) => entry.name);
    for (const name of [...mentioned, ...mentions]) add(name, "existing", clause);
  }
  return plan;
}

/** Splits a task into the Planner's, the Coder's and the Reviewer's parts. */
export function decomposeTask(task: string): TaskSlices {
  const clauses = readClauses(task);
  const decisionClauses = clauses.filter(({ reading }) => reading.decisions.length > 0);
  const workClauses = clauses.filter(
    ({ reading }) => reading.asksForWork || reading.builds.length > 0,
  );
  const decisions = decisionsFromText(task);
  const inventory = [
    ...new Set([
      ...decisions.map((decision) => decision.target),
      ...clauses.flatMap(({ reading }) => reading.updates),
    ]),
  ];
  const planner =
    decisionClauses.length > 0
      ? decisionClauses.map(({ clause }) => asSentence(clause)).join(" ")
      : `Decide the architecture for: ${task.trim()}`;
  // The Coder gets the work as the task wrote it; clauses that only decide stay the Planner's,
  // and clauses that neither decide nor ask for work are context, so they go to the Coder too.
  const coderClauses = clauses.filter(
    ({ reading }) =>
      reading.asksForWork || reading.builds.length > 0 || reading.decisions.length === 0,
  );
  const coder = (coderClauses.length > 0 ? coderClauses : clauses)
    .map(({ clause }) => asSentence(clause))
    .join(" ");
  const reviewer = "Review the finished work against the decisions that were made.";
  return {
    planner,
    coder,
    reviewer,
    inventory,
    decisions,
    plan: planFromText(workClauses.map(({ clause }) => asSentence(clause)).join(" "), inventory),
    unparsed: clauses.filter(({ reading }) => !isUnderstood(reading)).map(({ clause }) => clause),
    clauses,
  };
}
