import type { Command, Option } from "commander";
import { suggestSimilar } from "../ui/format/did-you-mean.js";

/**
 * Commander's parse errors in the house style, `shared-ctx: <what is wrong> (<hint>)` on one
 * line: the valid choices listed, "did you mean" for a near miss, else where to look. Commander
 * words each error itself (`error: unknown command 'rnu'\n(Did you mean run?)`); its error codes
 * are stable, so each code is re-worded here from the command it happened on.
 */

/** `shared-ctx run`, `shared-ctx bench store`: the command as the user types it. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current; current = current.parent) {
    names.unshift(current.name());
  }
  return names.join(" ");
}

/** The options a user may type on `command`: its own and its parents' (commander accepts both). */
function visibleLongFlags(command: Command): string[] {
  const flags: string[] = [];
  for (let current: Command | null = command; current; current = current.parent) {
    const help = current.createHelp();
    for (const option of help.visibleOptions(current)) {
      if (option.long) flags.push(option.long);
    }
  }
  return flags;
}

function visibleCommandNames(command: Command): string[] {
  return command
    .createHelp()
    .visibleCommands(command)
    .map((child) => child.name())
    .filter((name) => name !== "help");
}

/** `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`. */
function alternatives(values: readonly string[]): string {
  if (values.length <= 1) return values.join("");
  return `${values.slice(0, -1).join(", ")} or ${values.at(-1)}`;
}

/** The option whose flags commander quoted (`--mode <mode>`), by its long or short name. */
function findOption(command: Command, flags: string): Option | undefined {
  const names = flags.split(/[ ,|]+/).filter((part) => part.startsWith("-"));
  return command.options.find((option) =>
    names.some((name) => name === option.long || name === option.short),
  );
}

/** What commander put between the first pair of single quotes. */
function quoted(message: string, index = 0): string {
  return [...message.matchAll(/'([^']*)'/g)][index]?.[1] ?? "";
}

function optionName(option: Option | undefined, flags: string): string {
  return option?.long ?? option?.short ?? flags.split(" ")[0] ?? flags;
}

function choicesOf(option: Option | undefined): readonly string[] | undefined {
  const choices = option?.argChoices;
  return choices && choices.length > 0 ? choices : undefined;
}

/**
 * The house-style line (without its new line) for a commander error raised on `command`.
 * @param message commander's own message (`error: …`), the fallback for a code not known here
 * @param code commander's error code (`commander.unknownOption`, …)
 */
export function formatUsageMessage(message: string, code: string, command: Command): string {
  const path = commandPath(command);
  // The subcommand as said inside the message (`watch needs …`); the prefix already names us.
  const name = command.parent ? path.replace(/^\S+ /, "") : path;
  const help = `see ${path} --help`;
  const line = (what: string, hint: string) => `shared-ctx: ${what} (${hint})`;
  switch (code) {
    case "commander.unknownCommand": {
      const typed = quoted(message);
      const commands = visibleCommandNames(command);
      const near = suggestSimilar(typed, commands);
      const where = command.parent ? ` for ${name}` : "";
      return line(
        `unknown command '${typed}'${where}`,
        near.length > 0
          ? `did you mean ${alternatives(near)}? commands: ${commands.join(", ")}`
          : `commands: ${commands.join(", ")}`,
      );
    }
    case "commander.unknownOption": {
      const flag = quoted(message);
      const near = flag.startsWith("--") ? suggestSimilar(flag, visibleLongFlags(command)) : [];
      const what = `unknown option '${flag}'${command.parent ? ` for ${name}` : ""}`;
      return line(what, near.length > 0 ? `did you mean ${alternatives(near)}?` : help);
    }
    case "commander.optionMissingArgument": {
      const flags = quoted(message);
      const option = findOption(command, flags);
      const choices = choicesOf(option);
      return line(
        `${optionName(option, flags)} needs a value`,
        choices ? `one of: ${choices.join(", ")}` : `${flags}; ${help}`,
      );
    }
    case "commander.invalidArgument": {
      const optionMatch = /^error: option '(.+?)' argument '(.*)' is invalid\.\s*(.*)$/s.exec(
        message,
      );
      if (optionMatch) {
        const [, flags = "", value = "", reason = ""] = optionMatch;
        const option = findOption(command, flags);
        const choices = choicesOf(option);
        return line(
          `${optionName(option, flags)} '${value}' is not valid`,
          choices ? `one of: ${choices.join(", ")}` : reason.replace(/\.$/, "") || help,
        );
      }
      const argumentMatch =
        /^error: command-argument value '(.*)' is invalid for argument '(.+?)'\.\s*(.*)$/s.exec(
          message,
        );
      if (argumentMatch) {
        const [, value = "", name = "", reason = ""] = argumentMatch;
        return line(`<${name}> '${value}' is not valid`, reason.replace(/\.$/, "") || help);
      }
      break;
    }
    case "commander.missingArgument":
      return line(`${name} needs <${quoted(message)}>`, `usage: ${path} ${command.usage()}`);
    case "commander.missingMandatoryOptionValue": {
      const flags = quoted(message);
      return line(`${name} needs ${flags}`, `usage: ${path} ${command.usage()}`);
    }
    case "commander.excessArguments": {
      const takes = command.registeredArguments.length === 0 ? "it takes no arguments; " : "";
      return line(`too many arguments for ${name}`, `${takes}usage: ${path} ${command.usage()}`);
    }
    default:
      break;
  }
  // Anything else (a conflict between options, a custom parser's error): commander's words,
  // one line, in the house prefix.
  const words = message.replace(/^error:\s*/, "").replace(/\s*\n\s*/g, " ");
  return line(words.replace(/\.$/, ""), help);
}
