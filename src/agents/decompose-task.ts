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

/** Words that open a request without being part of it: "Please", "We need to", "Then". */
const politePrefix =
  /^(?:please|kindly|let's|let us|we(?:'ll| will| need to| should| must| want to|'d like to| would like to| have to)|i(?:'d like to| would like to| want to| need to)|you should|can you|could you|go ahead and|also|then|and|but|first|finally|next|now|just|to)\s+/i;

const deprecateVerb =
  /^(?:deprecate|retire|remove|drop|sunset|phase out|decommission|delete|get rid of|rip out|stop using|kill off|kill)\s+/i;
const keepVerb =
  /^(?:keep using|keep|continue using|stick with|retain|preserve|do not remove|don't remove|do not touch|don't touch)\s+/i;
const buildVerb =
  /^(?:build|implement|add|create|write|develop|ship|introduce|set up|setup|design|launch|stand up|spin up|deliver|support)\b\s*|^make\s+(?=an?\s)/i;
const updateVerb =
  /^(?:update|fix|refactor|extend|improve|upgrade|patch|modify|change|adapt|rework|rewrite|harden|clean up|optimi[sz]e|speed up|port|convert|test|document)\s+/i;

/** Every verb that can open a clause; a sentence splits before one of them. */
const anyVerb =
  "(?:deprecate|retire|remove|drop|sunset|phase out|decommission|delete|get rid of|rip out|stop using|keep|retain|preserve|replace|swap|use|migrate|move|switch|build|implement|add|create|write|develop|ship|introduce|set up|design|launch|update|fix|refactor|extend|improve|upgrade|port|rewrite)\\b";
const clauseBreak = new RegExp(
  `\\s*;\\s*|,?\\s+(?:and then|and|then|but also|but|also|plus)\\s+(?=${anyVerb})|,\\s+(?=${anyVerb})`,
  "i",
);

/** Where the object of a verb ends: a preposition or a subordinate clause. */
const objectEnd =
  /\s*[:(]|\s+(?:with|using|for|that|which|who|to|so|on|in|into|from|by|via|behind|under|at|because|since|as|where|when|before|after|without|instead of|in place of|rather than|replacing|in favou?r of|backed by|across|inside|within|once|until|if)\s+/i;

/** Words dropped at the start of a name ("legacy" is not one of them: it names the module). */
const leadingFillers =
  /^(?:the|a|an|our|its|their|this|that|these|those|my|your|his|her|some|all|any|every|new|old|existing|current|whole|entire|remaining)\s+/i;
/** Words dropped at the end of a name. */
const trailingFillers = /\s+(?:module|modules|component|components|code|package|packages)$/i;
/** Objects that name no module: "Update the existing modules it touches", "Remove it". */
const noModule =
  /^(?:modules?|components?|code|it|them|this|that|everything|anything|things?|stuff|us|one|ones|all|something|work|support)(?:\s|$)/i;
/** "Add support for webhooks" → webhooks-support: a generic noun names what it is for. */
const genericFor =
  /^(?:(?:the|a|an|our|some)\s+)?(support|tests?|docs|documentation|integration|endpoints?|api|page|screen|dashboard|monitoring|alerts|metrics|caching|cache|validation|logging|webhooks?|client|sdk|cli|ui)\s+for\s+(.+)$/i;
/** How many words a module name keeps. */
const maxNameWords = 3;

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

/** "build the v2 API" → "Build the v2 API." */
function asSentence(clause: string): string {
  return `${clause.charAt(0).toUpperCase()}${clause.slice(1)}.`;
}

/** "We are moving search…" → "move search…": the progressive of a verb the rules know. */
const progressive =
  /^(?:we(?:'re| are)|i(?:'m| am)|we(?:'ll| will) be|you(?:'re| are))\s+(moving|migrating|switching|replacing|swapping|building|adding|creating|writing|implementing|retiring|deprecating|removing|dropping|sunsetting|phasing out|keeping|updating|fixing|refactoring|porting|upgrading|rewriting|using)\s+/i;
const baseForms: Readonly<Record<string, string>> = {
  moving: "move",
  migrating: "migrate",
  switching: "switch",
  replacing: "replace",
  swapping: "swap",
  building: "build",
  adding: "add",
  creating: "create",
  writing: "write",
  implementing: "implement",
  retiring: "retire",
  deprecating: "deprecate",
  removing: "remove",
  dropping: "drop",
  sunsetting: "sunset",
  "phasing out": "phase out",
  keeping: "keep",
  updating: "update",
  fixing: "fix",
  refactoring: "refactor",
  porting: "port",
  upgrading: "upgrade",
  rewriting: "rewrite",
  using: "use",
};

function stripPrefixes(clause: string): string {
  let text = clause.trim();
  for (let previous = ""; previous !== text; ) {
    previous = text;
    text = text
      .replace(politePrefix, "")
      .replace(/^(?:we|i|you)(?:'re| are|'m| am) going to\s+/i, "")
      .replace(progressive, (_whole, verb: string) => {
        const base = Object.hasOwn(baseForms, verb.toLowerCase())
          ? baseForms[verb.toLowerCase()]
          : undefined;
        return `${base ?? verb} `;
      });
  }
  return text;
}

function words(name: string): string[] {
  return name.split("-").filter((word) => word.length > 0);
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * "legacy Stripe v1 module" -> "legacy-stripe-v1"; "the user account settings page" ->
 * "account-settings-page"; "" when the phrase names no module ("it", "the existing modules").
 */
export function toModuleName(phrase: string): string {
  let text = phrase.trim().replace(/[`'"]/g, "");
  // Strip the leading fillers first: "the existing modules" names no module, it is not "existing".
  for (let previous = ""; previous !== text; ) {
    previous = text;
    text = text.replace(leadingFillers, "");
  }
  if (noModule.test(text)) return "";
  for (let previous = ""; previous !== text; ) {
    previous = text;
    text = text.replace(trailingFillers, "");
  }
  return words(slug(text)).slice(-maxNameWords).join("-");
}

/** The phrase a verb's object runs to, before any preposition or clause. */
function objectOf(rest: string): string {
  // "Drop support for IE11": the object is what the support is for.
  return rest.replace(/^support\s+for\s+/i, "").split(objectEnd)[0] ?? "";
}

/** "X, Y and Z" → three names; "the session token and the cookie store" → two. */
function namesOf(phrase: string): string[] {
  const parts = phrase
    .split(/\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+(?=(?:the|a|an|our|its|their|all)\s)/i)
    .flatMap((part) =>
      /^\S+\s+(?:and|or)\s+\S+$/i.test(part) ? part.split(/\s+(?:and|or)\s+/i) : [part],
    );
  return [...new Set(parts.map(toModuleName).filter((name) => name !== ""))];
}

function nameOf(phrase: string): string | undefined {
  const name = toModuleName(phrase);
  return name === "" ? undefined : name;
}

/** "MySQL" + "the user table" → "mysql-user-table": the qualifier first, capped at three words. */
function qualified(qualifier: string, subject: string): string {
  const head = words(qualifier).slice(0, maxNameWords - 1);
  return [...head, ...words(subject).slice(-(maxNameWords - head.length))].join("-");
}

/** What a verb's object names, and the rest of the clause after it. */
function objectAndTail(rest: string): { object: string; tail: string } {
  const object = objectOf(rest);
  return { object, tail: rest.slice(object.length) };
}

/** What a rule may record about a clause. */
interface ClauseRecorder {
  deprecate(target: string | undefined): void;
  keep(target: string): void;
  build(module: string | undefined, implied: boolean): void;
  update(module: string): void;
  /** Deprecate what `old` names and build what `replacement` names (or `new-<old>`). */
  replace(old: string, replacement: string | undefined): void;
  /** The module the previous clause named, for "write docs for it". */
  readonly antecedent: string | undefined;
}

/** One phrasing: the first rule whose pattern matches a clause reads it. */
interface ClauseRule {
  pattern: RegExp;
  read(match: RegExpExecArray, record: ClauseRecorder): void;
}

const passiveAuxiliary =
  "(?:is|are|will be|should be|must be|gets|get|has to be|have to be|needs to be|can be|is being|are being)";
const replacedPhrase =
  /\b(?:to replace|that replaces|which replaces|replacing|instead of|in place of|rather than)\s+(.+)$/i;
const favourPhrase = /\bin favou?r of\s+(.+)$/i;

/** The phrasings the rules understand, most specific first. */
const clauseRules: readonly ClauseRule[] = [
  {
    pattern: /^replace\s+(.+?)(?:\s+(?:with|by)\s+(.+))?$/i,
    read: (match, record) => record.replace(match[1] ?? "", match[2]),
  },
  {
    pattern: new RegExp(`^(.+?)\\s+${passiveAuxiliary}\\s+replaced\\s+(?:by|with)\\s+(.+)$`, "i"),
    read: (match, record) => record.replace(match[1] ?? "", match[2]),
  },
  {
    pattern: /^swap\s+(?:out\s+)?(.+?)\s+(?:out\s+)?(?:for|with)\s+(.+)$/i,
    read: (match, record) => record.replace(match[1] ?? "", match[2]),
  },
  {
    pattern: /^(?:use|adopt|prefer)\s+(.+?)\s+(?:instead of|rather than|in place of)\s+(.+)$/i,
    read: (match, record) => record.replace(match[2] ?? "", match[1]),
  },
  {
    // "the user table from MySQL to Postgres", "from MySQL to Postgres".
    pattern:
      /^(?:migrate|move|switch|transition)\s+(?:(.+?)\s+)?from\s+(.+?)\s+(?:to|onto|over to|into)\s+(.+)$/i,
    read: (match, record) => {
      const subject = nameOf(objectOf(match[1] ?? ""));
      const old = nameOf(objectOf(match[2] ?? ""));
      const replacement = nameOf(objectOf(match[3] ?? ""));
      if (old === undefined || replacement === undefined) {
        record.build(undefined, false);
        return;
      }
      record.deprecate(subject ? qualified(old, subject) : old);
      record.build(subject ? qualified(replacement, subject) : replacement, false);
    },
  },
  {
    // "the user table to Postgres" (the table as it is goes), "to Postgres" (only new work).
    pattern: /^(?:migrate|move|switch|transition)\s+(?:(.+?)\s+)?(?:to|onto|over to|into)\s+(.+)$/i,
    read: (match, record) => {
      const subject = nameOf(objectOf(match[1] ?? ""));
      const replacement = nameOf(objectOf(match[2] ?? ""));
      if (replacement === undefined) {
        record.build(undefined, false);
        return;
      }
      record.deprecate(subject);
      record.build(subject ? qualified(replacement, subject) : replacement, false);
    },
  },
  {
    pattern: new RegExp(`${deprecateVerb.source}(.+)$`, "i"),
    read: (match, record) => {
      const rest = match[1] ?? "";
      for (const name of namesOf(objectOf(rest))) record.deprecate(name);
      const favour = favourPhrase.exec(rest);
      if (favour) for (const name of namesOf(objectOf(favour[1] ?? ""))) record.build(name, true);
    },
  },
  {
    pattern: new RegExp(`${keepVerb.source}(.+)$`, "i"),
    read: (match, record) => {
      for (const name of namesOf(objectOf(match[1] ?? ""))) record.keep(name);
    },
  },
  {
    pattern: new RegExp(
      `^(.+?)\\s+${passiveAuxiliary}\\s+(?:deprecated|retired|removed|dropped|sunset|sunsetted|phased out|decommissioned|deleted)\\b(.*)$`,
      "i",
    ),
    read: (match, record) => {
      for (const name of namesOf(match[1] ?? "")) record.deprecate(name);
      const favour = favourPhrase.exec(match[2] ?? "");
      if (favour) for (const name of namesOf(objectOf(favour[1] ?? ""))) record.build(name, true);
    },
  },
  {
    pattern:
      /^(.+?)\s+(?:stays|must stay|should stay|will stay|is kept|are kept|will be kept|should be kept|must be kept|remains|must remain|should remain)\b/i,
    read: (match, record) => {
      for (const name of namesOf(match[1] ?? "")) record.keep(name);
    },
  },
  {
    pattern: new RegExp(`(?:${buildVerb.source})(.+)$`, "i"),
    read: (match, record) => {
      const rest = match[1] ?? "";
      const generic = genericFor.exec(rest);
      const { object, tail } = objectAndTail(generic ? (generic[2] ?? "") : rest);
      const pronoun = /^(?:it|them|this|that)$/i.test(object.trim());
      const names =
        generic && pronoun && record.antecedent !== undefined
          ? [record.antecedent]
          : namesOf(object);
      for (const name of names) {
        record.build(generic ? qualified(name, generic[1]?.toLowerCase() ?? "") : name, false);
      }
      if (names.length === 0) record.build(undefined, false);
      const replaced = replacedPhrase.exec(tail);
      if (replaced) for (const name of namesOf(objectOf(replaced[1] ?? ""))) record.deprecate(name);
    },
  },
  {
    pattern: new RegExp(`${updateVerb.source}(.+)$`, "i"),
    read: (match, record) => {
      const object = objectOf(match[1] ?? "").replace(
        /\s+(?:bugs?|issues?|crash(?:es)?|problems?|errors?|tests?)$/i,
        "",
      );
      record.build(undefined, false);
      for (const name of namesOf(object)) record.update(name);
    },
  },
];

/** Reads one clause: its decisions, the modules it asks to build, the existing ones it updates. */
export function readClause(clause: string, antecedent?: string): ClauseReading {
  const text = stripPrefixes(clause);
  const content = asSentence(clause);
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
      reading.updates.push(module);
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

/** Reads every clause of a text, in order, with its reading. */
function readClauses(text: string): Array<{ clause: string; reading: ClauseReading }> {
  const clauses: Array<{ clause: string; reading: ClauseReading }> = [];
  let antecedent: string | undefined;
  for (const clause of splitSentences(text).flatMap(splitClauses)) {
    const reading = readClause(clause, antecedent);
    antecedent =
      [...reading.builds.map((entry) => entry.module), ...reading.updates].at(-1) ?? antecedent;
    clauses.push({ clause, reading });
  }
  return clauses;
}

/** The decisions a slice states, first decision per target. */
export function decisionsFromText(text: string): SentenceDecision[] {
  const decisions: SentenceDecision[] = [];
  for (const { reading } of readClauses(text)) {
    for (const decision of reading.decisions) {
      if (!decisions.some((known) => known.target === decision.target)) decisions.push(decision);
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
    const slugged = reading.builds.reduce(
      (text, entry) => text.replaceAll(`-${entry.module}-`, "-"),
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
  };
}
