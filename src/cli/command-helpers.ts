import { InvalidArgumentError } from "commander";
import type { Brain } from "../agents/brain.js";
import { LlmConfigError } from "../llm/errors/llm-config-error.js";
import type { StoreSelection } from "../ui/data/open-store.js";
import type { CliDeps, OutputStream } from "./cli-deps.js";
import { UsageError } from "./fatal-error.js";

/** Commander parser for `--speed`: a finite number above zero. */
export function parsePositiveNumber(raw: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError("expected a number > 0");
  }
  return value;
}

/** Commander parser for `--seed`: any whole number. */
export function parseSeed(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new InvalidArgumentError("expected a whole number");
  return value;
}

/** True for a real terminal stream (what Ink needs), not a pipe or a test buffer. */
export function isTerminal(stream: OutputStream): stream is OutputStream & NodeJS.WriteStream {
  return stream.isTTY === true && "on" in stream;
}

/**
 * The brain the agents think with, from `LLM_*` in the environment. A malformed variable is the
 * user's input, so it is a usage error (exit 2), not a runtime failure.
 */
export async function brainFromEnv(deps: CliDeps): Promise<Brain> {
  // Loaded here, not at the top: the AI SDK is only for commands that think (start-up cost).
  const { createBrainFromEnv } = await import("../agents/create-brain.js");
  try {
    return createBrainFromEnv(deps.env);
  } catch (error) {
    if (error instanceof LlmConfigError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/** The store a command's `--store`, `--db` and `--url` flags select, with the environment's defaults. */
export function storeSelection(
  options: { store?: "embedded" | "statewave"; db?: string; url?: string },
  deps: CliDeps,
): StoreSelection {
  return { store: options.store, db: options.db, url: options.url, env: deps.env, cwd: deps.cwd };
}
