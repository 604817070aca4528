import { isHarnessName } from "../hooks/harness-format.js";
import type { HookCommandOptions } from "./hook-runtime.js";
import type { CheckCommandOptions } from "./run-check.js";
import { type HookName, type HookRunOptions, isHookName } from "./run-hook.js";

/**
 * The command lines the hook's fast path (hook-main.ts) runs without commander: `hook <name>` and
 * `check` with nothing but their own long options, each with a value. Anything else — `--help`,
 * an unknown or repeated flag's misuse, a missing value, a bad `--store`, a stray argument — is
 * left to the full CLI, so usage errors and help read exactly as the command table prints them.
 */
export type FastCommand =
  | { readonly command: "hook"; readonly name: HookName; readonly options: HookRunOptions }
  | { readonly command: "check"; readonly options: CheckCommandOptions };

/** The value-taking flags every hook command has (commands/hook-options.ts), by option key. */
const storeFlags = new Map<string, keyof HookCommandOptions>([
  ["--subject", "subject"],
  ["--root", "root"],
  ["--db", "db"],
  ["--store", "store"],
  ["--database-url", "databaseUrl"],
  ["--url", "url"],
]);

const storeKinds: ReadonlySet<string> = new Set(["embedded", "statewave", "postgres"]);

/** One `--flag value` or `--flag=value` at `index`, or undefined when it is not that shape. */
function flagAt(
  argv: readonly string[],
  index: number,
): { flag: string; value: string; next: number } | undefined {
  const token = argv[index];
  if (token === undefined || !token.startsWith("--")) return undefined;
  const equals = token.indexOf("=");
  if (equals > 0)
    return { flag: token.slice(0, equals), value: token.slice(equals + 1), next: index + 1 };
  const value = argv[index + 1];
  // A value that looks like a flag is commander's to judge (it may be a missing value).
  if (value === undefined || value.startsWith("-")) return undefined;
  return { flag: token, value, next: index + 2 };
}

/**
 * Recognises a hook or `check` command line (argv after `node bin`), or undefined for anything the
 * full CLI must parse. Pure.
 */
export function parseFastCommand(argv: readonly string[]): FastCommand | undefined {
  const [command, name] = argv;
  if (command === "hook") {
    if (!isHookName(name)) return undefined;
    const options = parseFlags(
      argv,
      2,
      new Map([
        ...storeFlags,
        ["--agent", "agent"],
        ["--harness", "harness"],
        ["--server", "server"],
      ]),
    );
    return options === undefined ? undefined : { command, name, options: options.hook };
  }
  if (command === "check") {
    const options = parseFlags(argv, 1, storeFlags, true);
    if (options === undefined || options.agent === undefined || options.paths.length === 0) {
      return undefined;
    }
    return {
      command,
      options: {
        ...options.hook,
        agent: options.agent,
        path: options.paths,
        tool: options.tool ?? "edit",
      },
    };
  }
  return undefined;
}

interface ParsedFlags {
  hook: HookRunOptions;
  agent?: string;
  paths: string[];
  tool?: string;
}

/**
 * Reads flags from `start` on. With `check`, also `--agent`, `--tool` and the variadic `--path`
 * (its values run to the next flag, as commander's `<file...>`).
 */
function parseFlags(
  argv: readonly string[],
  start: number,
  flags: ReadonlyMap<string, keyof HookRunOptions>,
  check = false,
): ParsedFlags | undefined {
  const hook: Record<string, string> = {};
  const parsed: ParsedFlags = { hook, paths: [] };
  let index = start;
  while (index < argv.length) {
    const found = flagAt(argv, index);
    if (found === undefined) return undefined;
    const { flag, value } = found;
    index = found.next;
    const key = flags.get(flag);
    if (key !== undefined) {
      if (key === "store" && !storeKinds.has(value)) return undefined;
      if (key === "harness" && !isHarnessName(value)) return undefined;
      hook[key] = value;
    } else if (check && flag === "--agent") {
      parsed.agent = value;
    } else if (check && flag === "--tool") {
      parsed.tool = value;
    } else if (check && flag === "--path") {
      parsed.paths.push(value);
      // `--path a b c`: the values after the first, up to the next flag (not after `--path=a`).
      if (!argv[index - 1]?.startsWith("--path=")) {
        while (index < argv.length && !argv[index]?.startsWith("-")) {
          parsed.paths.push(argv[index] ?? "");
          index += 1;
        }
      }
    } else {
      return undefined;
    }
  }
  return parsed;
}
