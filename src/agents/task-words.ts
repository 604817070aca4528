/**
 * The words the task decomposer (decompose-task.ts) reads: the verbs of each kind of clause, the
 * fillers around a request, and how a phrase becomes a module name (short kebab-case nouns, the
 * head noun last). Pure.
 */

/** Words that open a request without being part of it: "Please", "We need to", "Then". */
const politePrefix =
  /^(?:please|kindly|let's|let us|we(?:'ll| will| need to| should| must| want to|'d like to| would like to| have to)|i(?:'d like to| would like to| want to| need to)|you should|can you|could you|go ahead and|also|then|and|but|first|finally|next|now|just|to)\s+/i;

export const deprecateVerb =
  /^(?:deprecate|retire|remove|drop|sunset|phase out|decommission|delete|get rid of|rip out|stop using|kill off|kill)\s+/i;
export const keepVerb =
  /^(?:keep using|keep|continue using|continue to use|stick with|retain|preserve|leave|do not remove|don't remove|do not touch|don't touch|do not delete|don't delete)\s+/i;
export const buildVerb =
  /^(?:build|implement|add|create|write|develop|ship|introduce|set up|setup|design|launch|stand up|spin up|deliver|support)\b\s*|^make\s+(?=an?\s)/i;
export const updateVerb =
  /^(?:update|fix|refactor|extend|improve|upgrade|patch|modify|change|adapt|rework|rewrite|harden|clean up|tidy up|optimi[sz]e|speed up|port|convert|test|document|debug|repair|stabili[sz]e|tune|profile|secure|simplify|modernize|modernise|polish|maintain|translate|locali[sz]e|rename|reformat|audit|monitor|instrument)\s+/i;

/**
 * Words a fix or an improvement qualifies its module with: "Fix the flaky login tests" works on
 * `login`, not on a new module `flaky-login`.
 */
const workAdjectives =
  /^(?:flaky|broken|failing|slow|buggy|unstable|outdated|messy|fragile|intermittent|crashing|leaky|noisy|sluggish|unreliable|brittle|confusing|ugly)\s+/i;
/** What a fix or an improvement is about, rather than the module: bugs, tests, performance. */
const workNouns =
  /\s+(?:bugs?|issues?|crash(?:es)?|problems?|errors?|tests?|test suite|specs?|performance|latency|speed|memory leaks?|leaks?|timeouts?|typos?|docs|documentation|coverage|flakiness|logic|handling|behaviou?r|ui|ux)$/i;

/** Every verb that can open a clause; a sentence splits before one of them. */
const anyVerb =
  "(?:deprecate|retire|remove|drop|sunset|phase out|decommission|delete|get rid of|rip out|stop using|keep|retain|preserve|leave|replace|swap|use|migrate|move|switch|build|implement|add|create|write|develop|ship|introduce|set up|design|launch|update|fix|refactor|extend|improve|upgrade|port|rewrite|split|merge|consolidate|make|speed up|clean up|harden|optimi[sz]e|convert|document)\\b";
export const clauseBreak = new RegExp(
  // "We're dropping MongoDB: use Postgres for…": a colon before a verb opens a clause of its own.
  `\\s*;\\s*|,?\\s+(?:and then|and|then|but also|but|also|plus)\\s+(?=${anyVerb})|[,:]\\s+(?=${anyVerb})`,
  "i",
);

/** Where the object of a verb ends: a preposition or a subordinate clause. */
const objectEnd =
  /\s*[:(—–]|\s+-{1,2}\s+|\s+(?:for now|for the time being|for a while|running|alive|around|in place|as is|as-is|intact|working|still|as well|too|unless|while|except|with|using|for|that|which|who|to|so|on|in|into|from|by|via|behind|under|at|because|since|as|where|when|before|after|without|instead of|in place of|rather than|replacing|in favou?r of|backed by|across|inside|within|once|until|if)(?:\s+|$)/i;

/** Words dropped at the start of a name ("legacy" is not one of them: it names the module). */
const leadingFillers =
  /^(?:the|a|an|our|its|their|this|that|these|those|my|your|his|her|some|all|any|every|new|old|existing|current|whole|entire|remaining|one|single|two|three|four|several|both)\s+/i;
/** Words dropped at the end of a name. */
const trailingFillers =
  /\s+(?:module|modules|component|components|code|package|packages|codebase)$/i;
/** "the legacy billing-cron job" → `legacy-billing-cron`, but "the cron jobs" stay `cron-jobs`. */
const trailingJob = /^(\S+[\s-]\S+.*?)\s+jobs?$/i;
/** Objects that name no module: "Update the existing modules it touches", "Remove it". */
const noModule =
  /^(?:modules?|components?|code|it|them|this|that|everything|anything|things?|stuff|us|one|ones|all|something|work|support)(?:\s|$)/i;
/** "Add support for webhooks" → webhooks-support: a generic noun names what it is for. */
export const genericFor =
  /^(?:(?:the|a|an|our|some)\s+)?(?:(?:unit|integration|end-to-end|e2e|smoke|load|api|user|developer)\s+)?(support|tests?|docs|documentation|integration|endpoints?|api|page|screen|dashboard|monitoring|alerts|metrics|caching|cache|validation|logging|webhooks?|client|sdk|cli|ui)\s+for\s+(.+)$/i;
/** How many words a module name keeps. */
const maxNameWords = 3;

/** "build the v2 API" → "Build the v2 API." */
export function asSentence(clause: string): string {
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

export function stripPrefixes(clause: string): string {
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

export function words(name: string): string[] {
  return name.split("-").filter((word) => word.length > 0);
}

export function slug(text: string): string {
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
    text = text.replace(trailingFillers, "").replace(trailingJob, "$1");
  }
  return words(slug(text)).slice(-maxNameWords).join("-");
}

/** The phrase a verb's object runs to, before any preposition or clause. */
export function objectOf(rest: string): string {
  // "Drop support for IE11": the object is what the support is for.
  return rest.replace(/^support\s+for\s+/i, "").split(objectEnd)[0] ?? "";
}

/** "services" → "service": the head noun a list shares ("auth and profile services"). */
function singular(word: string): string {
  return /[^s]s$/i.test(word) && word.length > 3 ? word.slice(0, -1) : word;
}

/**
 * "X, Y and Z" → three names; "the session token and the cookie store" → two; "the auth and
 * profile services" → `auth-service`, `profile-service` (the plural head belongs to each).
 */
export function namesOf(phrase: string): string[] {
  const parts = phrase
    .split(/\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+/i)
    .map((part) => part.trim())
    .filter((part) => part !== "");
  const last = parts.at(-1) ?? "";
  const lastWords = last.split(/\s+/);
  const head = lastWords.at(-1) ?? "";
  const shared =
    parts.length > 1 &&
    lastWords.length >= 2 &&
    !leadingFillers.test(last) &&
    singular(head) !== head &&
    parts.slice(0, -1).every((part) => !/\s/.test(part.replace(leadingFillers, "")));
  const phrases = shared
    ? [
        ...parts.slice(0, -1).map((part) => `${part} ${singular(head)}`),
        `${lastWords.slice(0, -1).join(" ")} ${singular(head)}`,
      ]
    : parts;
  return [...new Set(phrases.map(toModuleName).filter((name) => name !== ""))];
}

/** A pronoun that stands for the module the clause (or the one before) named: "keep it for now". */
const pronoun = /^(?:it|them|this|that|these|those|both)$/i;

/** The modules a decision's object names; a pronoun names the antecedent. */
export function targetsOf(object: string, antecedent: string | undefined): string[] {
  if (pronoun.test(object.trim())) return antecedent === undefined ? [] : [antecedent];
  return namesOf(object);
}

/** What a fix or an improvement is about when a place follows: "the memory leak in …". */
const workAspect =
  /^(?:\w+\s+)?(?:bugs?|issues?|leaks?|crash(?:es)?|problems?|errors?|error messages|messages|tests?|performance|latency|speed|timeouts?|typos?|docs|documentation|coverage|logic|handling|behaviou?r|ui|ux|copy|wording|layout|styles?|styling)$/i;

/**
 * "the flaky login tests" → `login`; "the memory leak in the websocket server" →
 * `websocket-server`: the module a fix or an improvement works on, from the verb's whole rest.
 */
export function workTargetsOf(rest: string, antecedent: string | undefined): string[] {
  const place = /^(.+?)\s+(?:in|of|on|inside|within|from)\s+(.+)$/i.exec(rest.trim());
  if (place) {
    const aspect = (place[1] ?? "").replace(leadingFillers, "").replace(workAdjectives, "");
    if (workAspect.test(aspect.trim())) return workTargetsOf(objectOf(place[2] ?? ""), antecedent);
  }
  let text = objectOf(rest).trim();
  for (let previous = ""; previous !== text; ) {
    previous = text;
    text = text.replace(leadingFillers, "").replace(workAdjectives, "").replace(workNouns, "");
  }
  return targetsOf(text, antecedent);
}

/** "… to the API gateway": the existing module new work goes into (not "to replace X"). */
export const intoModule =
  /^\s*(?:to|into|inside)\s+((?:the|our|its|their|each|every)\s+.+|[a-z0-9]+-[a-z0-9-]*[a-z0-9]\b.*)$/i;

export function nameOf(phrase: string): string | undefined {
  const name = toModuleName(phrase);
  return name === "" ? undefined : name;
}

/** "MySQL" + "the user table" → "mysql-user-table": the qualifier first, capped at three words. */
export function qualified(qualifier: string, subject: string): string {
  const head = words(qualifier).slice(0, maxNameWords - 1);
  return [...head, ...words(subject).slice(-(maxNameWords - head.length))].join("-");
}

/** What a verb's object names, and the rest of the clause after it. */
export function objectAndTail(rest: string): { object: string; tail: string } {
  const object = objectOf(rest);
  return { object, tail: rest.slice(object.length) };
}
