import {
  buildVerb,
  deprecateVerb,
  genericFor,
  intoModule,
  keepVerb,
  nameOf,
  namesOf,
  objectAndTail,
  objectOf,
  qualified,
  targetsOf,
  updateVerb,
  workTargetsOf,
} from "./task-words.js";

/**
 * The phrasings the task decomposer (decompose-task.ts) understands, one rule each, most specific
 * first; each rule records what its clause decides or asks for through a `ClauseRecorder`.
 */

/** What a rule may record about a clause. */
export interface ClauseRecorder {
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
export interface ClauseRule {
  pattern: RegExp;
  read(match: RegExpExecArray, record: ClauseRecorder): void;
}

const passiveAuxiliary =
  "(?:is|are|will be|should be|must be|gets|get|has to be|have to be|needs to be|can be|is being|are being)";
const replacedPhrase =
  /\b(?:to replace|that replaces|which replaces|replacing|instead of|in place of|rather than)\s+(.+)$/i;
const favourPhrase = /\bin favou?r of\s+(.+)$/i;

/** The phrasings the rules understand, most specific first. */
export const clauseRules: readonly ClauseRule[] = [
  {
    // "Split the user service into auth and profile services": the old module goes, the parts come.
    pattern: /^split\s+(?:up\s+)?(.+?)\s+(?:into|in)\s+(.+)$/i,
    read: (match, record) => record.replace(match[1] ?? "", match[2] ?? ""),
  },
  {
    // "Merge the guest cart into the cart service": the merged module goes, the other takes it in.
    pattern: /^(merge|fold|consolidate|combine)\s+(.+?)\s+(?:into|with)\s+(.+)$/i,
    read: (match, record) => {
      for (const name of namesOf(objectOf(match[2] ?? ""))) record.deprecate(name);
      const into = namesOf(objectOf(match[3] ?? ""));
      // "into one messaging service", "into a new service": what they merge into is new work.
      const intoNew = /^(?:one|a|an|a single|a new|one new|a unified|a combined)\s/i.test(
        (match[3] ?? "").trim(),
      );
      const receives = /^(?:merge|fold)$/i.test(match[1] ?? "") && !intoNew;
      for (const name of into) {
        if (receives) {
          record.build(undefined, false);
          record.update(name);
        } else record.build(name, false);
      }
    },
  },
  {
    // "Make search faster", "make the importer more reliable": work on the existing module.
    pattern:
      /^make\s+(?!an?\s)(.+?)\s+(?:faster|quicker|smaller|simpler|safer|cheaper|lighter|leaner|stabler|better|cleaner|more\s+\S+|less\s+\S+|work\b|compatible\b|configurable\b|accessible\b|responsive\b|testable\b)(?:\s.*)?$/i,
    read: (match, record) => {
      record.build(undefined, false);
      for (const name of workTargetsOf(match[1] ?? "", record.antecedent)) record.update(name);
    },
  },
  {
    pattern: /^(?:(?:we|i|you)\s+)?(?:no longer need|don't need|do not need)\s+(.+)$/i,
    read: (match, record) => {
      for (const name of targetsOf(objectOf(match[1] ?? ""), record.antecedent)) {
        record.deprecate(name);
      }
    },
  },
  {
    pattern: /^replace\s+(.+?)(?:\s+(?:with|by)\s+(.+))?$/i,
    read: (match, record) => record.replace(match[1] ?? "", match[2]),
  },
  {
    // "the v2 app replaces it": the new module comes, the old one (often a pronoun) goes.
    pattern:
      /^(?!(?:build|implement|add|create|write|develop|ship|introduce|set up|design|launch|make|deliver)\b)(.+?)\s+(?:replaces|will replace|is replacing|supersedes|will supersede|takes over from)\s+(.+)$/i,
    read: (match, record) => {
      for (const name of targetsOf(objectOf(match[2] ?? ""), record.antecedent)) {
        record.deprecate(name);
      }
      for (const name of namesOf(match[1] ?? "")) record.build(name, false);
    },
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
    // "use Postgres for users and orders": new work, one module per thing it is for.
    pattern:
      /^(?:use|adopt)\s+(?!.*\b(?:instead of|rather than|in place of)\b)(.+?)\s+for\s+(.+)$/i,
    read: (match, record) => {
      const tool = nameOf(objectOf(match[1] ?? ""));
      const uses = namesOf(match[2] ?? "");
      if (tool === undefined || uses.length === 0) record.build(tool, false);
      else for (const use of uses) record.build(qualified(tool, use), false);
    },
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
      for (const name of targetsOf(objectOf(rest), record.antecedent)) record.deprecate(name);
      const favour = favourPhrase.exec(rest);
      if (favour) for (const name of namesOf(objectOf(favour[1] ?? ""))) record.build(name, true);
    },
  },
  {
    pattern: new RegExp(`${keepVerb.source}(.+)$`, "i"),
    read: (match, record) => {
      for (const name of targetsOf(objectOf(match[1] ?? ""), record.antecedent)) record.keep(name);
    },
  },
  {
    pattern: new RegExp(
      `^(.+?)\\s+(?:${passiveAuxiliary}\\s+(?:deprecated|retired|removed|dropped|sunset|sunsetted|phased out|decommissioned|deleted)|(?:is|are)\\s+no longer\\s+(?:needed|used|required|supported|wanted)|(?:can|must|should|has to|have to)\\s+go)\\b(.*)$`,
      "i",
    ),
    read: (match, record) => {
      for (const name of targetsOf(match[1] ?? "", record.antecedent)) record.deprecate(name);
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
      const into = intoModule.exec(tail);
      if (into && !replacedPhrase.test(tail)) {
        for (const name of namesOf(objectOf(into[1] ?? ""))) record.update(name);
      }
      const replaced = replacedPhrase.exec(tail);
      if (replaced) for (const name of namesOf(objectOf(replaced[1] ?? ""))) record.deprecate(name);
    },
  },
  {
    pattern: new RegExp(`${updateVerb.source}(.+)$`, "i"),
    read: (match, record) => {
      record.build(undefined, false);
      for (const name of workTargetsOf(match[1] ?? "", record.antecedent)) record.update(name);
    },
  },
];
