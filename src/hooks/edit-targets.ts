import { isAbsolute, resolve } from "node:path";

/**
 * Which files a tool call is about to change, from its name and input (Claude Code's tool input
 * shapes, https://code.claude.com/docs/en/hooks "PreToolUse input"): `Edit`, `Write` and
 * `MultiEdit` carry `file_path`, `NotebookEdit` carries `notebook_path`; for `Bash`, the files a
 * command obviously writes (see {@link bashWriteTargets}). Other tools change no file: empty.
 * Paths come back absolute (relative ones resolved against `cwd`). Pure: no file system.
 */
export function editTargets(
  toolName: string | undefined,
  toolInput: Readonly<Record<string, unknown>>,
  cwd: string,
): string[] {
  const absolute = (path: string) => (isAbsolute(path) ? path : resolve(cwd, path));
  switch (toolName) {
    case "Edit":
    case "Write":
    case "MultiEdit": {
      const path = toolInput.file_path;
      return typeof path === "string" && path ? [absolute(path)] : [];
    }
    case "NotebookEdit": {
      const path = toolInput.notebook_path ?? toolInput.file_path;
      return typeof path === "string" && path ? [absolute(path)] : [];
    }
    case "Bash": {
      const command = toolInput.command;
      return typeof command === "string"
        ? [...new Set(bashWriteTargets(command).map(absolute))]
        : [];
    }
    default:
      return [];
  }
}

/** The tools whose calls {@link editTargets} reads. */
export const editTools = ["Edit", "Write", "MultiEdit", "NotebookEdit", "Bash"] as const;

/** Splits a shell command into words and operators, honouring quotes and backslashes. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  let quote: '"' | "'" | undefined;
  const flush = () => {
    if (inWord) words.push(current);
    current = "";
    inWord = false;
  };
  for (let index = 0; index < command.length; index += 1) {
    const character = command.charAt(index);
    if (quote) {
      if (character === quote) quote = undefined;
      else if (character === "\\" && quote === '"' && index + 1 < command.length) {
        index += 1;
        current += command.charAt(index);
      } else current += character;
      continue;
    }
    if (character === "'" || character === '"') {
      quote = character;
      inWord = true;
    } else if (character === "\\" && index + 1 < command.length) {
      index += 1;
      current += command.charAt(index);
      inWord = true;
    } else if (/\s/.test(character)) {
      flush();
    } else if (/[;&|<>()]/.test(character)) {
      flush();
      // Operators of two characters (`&&`, `||`, `>>`, `2>`, `&>`) stay one word.
      const next = command.charAt(index + 1);
      if (
        (character === ">" && next === ">") ||
        (character === "&" && next === "&") ||
        (character === "|" && next === "|") ||
        (character === "&" && next === ">")
      ) {
        words.push(character + next);
        index += 1;
        if (command.charAt(index + 1) === ">") {
          words[words.length - 1] += ">";
          index += 1;
        }
      } else {
        words.push(character);
      }
    } else {
      current += character;
      inWord = true;
    }
  }
  flush();
  return words;
}

const separators = new Set([";", "&&", "||", "|", "&", "(", ")"]);
const redirections = new Set([">", ">>", "&>", "&>>"]);
/** Places a redirection or command writes that are not files of the project. */
const notAFile = /^(?:\/dev\/|&\d*$|-$)/;

/** Operands of a command: its words without options (a `--` ends the options). */
function operands(words: readonly string[]): string[] {
  const result: string[] = [];
  let optionsDone = false;
  for (const word of words) {
    if (!optionsDone && word === "--") {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && word.startsWith("-") && word !== "-") continue;
    result.push(word);
  }
  return result;
}

/**
 * The files a Bash command obviously writes: output redirections (`>`, `>>`, `&>`, not to
 * /dev/*), `tee`, `touch`, `rm`, `mkdir`, `truncate`, `mv` (source and destination), `cp`/`install`
 * (destination), `sed -i` / `perl -i` (the files), `git rm`/`git mv`. Anything cleverer (a script,
 * `xargs`, an editor) is not guessed at: this is a guard for the obvious case, not a sandbox.
 */
export function bashWriteTargets(command: string): string[] {
  const words = shellWords(command);
  const targets: string[] = [];
  let start = 0;
  const simpleCommands: string[][] = [];
  for (let index = 0; index <= words.length; index += 1) {
    const word = words[index];
    if (word === undefined || separators.has(word)) {
      simpleCommands.push(words.slice(start, index));
      start = index + 1;
    }
  }
  for (const raw of simpleCommands) {
    // Redirections first: they can stand anywhere in a simple command.
    const plain: string[] = [];
    for (let index = 0; index < raw.length; index += 1) {
      const word = raw[index] ?? "";
      // `2>` arrives as "2" then ">": a file-descriptor number before a redirection is not an operand.
      if (/^\d$/.test(word) && redirections.has(raw[index + 1] ?? "")) continue;
      if (redirections.has(word)) {
        const target = raw[index + 1];
        if (target !== undefined && !notAFile.test(target)) targets.push(target);
        index += 1;
        continue;
      }
      if (word === "<") {
        index += 1;
        continue;
      }
      plain.push(word);
    }
    // Leading variable assignments and wrappers do not change what the command is.
    while (
      plain.length > 0 &&
      (/^\w+=/.test(plain[0] ?? "") || plain[0] === "sudo" || plain[0] === "command")
    ) {
      plain.shift();
    }
    const [name, ...rest] = plain;
    if (name === undefined) continue;
    const args = operands(rest);
    switch (name) {
      case "tee":
      case "touch":
      case "rm":
      case "mkdir":
      case "truncate":
      case "unlink":
      case "rmdir":
        targets.push(...args.filter((arg) => !notAFile.test(arg)));
        break;
      case "mv":
        targets.push(...args);
        break;
      case "cp":
      case "install":
      case "ln": {
        const destination = args.at(-1);
        if (args.length >= 2 && destination !== undefined) targets.push(destination);
        break;
      }
      case "sed":
      case "perl":
        if (rest.some((arg) => /^-[a-zA-Z]*i/.test(arg) || arg.startsWith("--in-place"))) {
          // The first operand is the script (with or without -e, whose value reads as an operand).
          targets.push(...args.slice(1));
        }
        break;
      case "git": {
        const [sub, ...gitArgs] = rest;
        if (sub === "rm" || sub === "mv") targets.push(...operands(gitArgs));
        break;
      }
      default:
        break;
    }
  }
  return targets;
}
