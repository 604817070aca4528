import { existsSync } from "node:fs";
import { basename, isAbsolute } from "node:path";
import type { Context, Hono } from "hono";
import type { ContextStore } from "../context/context-store.js";
import type { ClaudeCodeHookEvent } from "../hooks/claude-code-output.js";
import { type HookAnswer, postToolUse, preToolUse, sessionStart } from "../hooks/edit-hooks.js";
import { editTargets } from "../hooks/edit-targets.js";
import { HookInputError } from "../hooks/errors/hook-input-error.js";
import { ProjectConfigError } from "../hooks/errors/project-config-error.js";
import {
  harnessInput,
  harnessNames,
  harnessOutput,
  isHarnessName,
} from "../hooks/harness-format.js";
import { type HookInput, hookAgentId, parseHookInput } from "../hooks/hook-input.js";
import { findProjectRoot, loadProject } from "../hooks/load-project.js";
import { type ProjectConfig, parseProjectConfig } from "../hooks/project-config.js";
import { HttpError } from "./http-error.js";
import { readJsonBody } from "./read-json-body.js";
import type { ServerEnv } from "./server-env.js";

/**
 * The edit hooks over HTTP: `POST /hooks/claude-code` and `POST /hooks/gemini-cli` take the hook
 * input a harness would pipe into `shared-ctx hook …` (Claude Code's `"type": "http"` hooks post it
 * as the body) and answer with the same JSON, over the served store, with no process started per
 * call. The event is the input's `hook_event_name`. An event or tool with nothing to check gets
 * 200 with an empty body (what Claude Code reads as "no objection"). Behind the same Host check,
 * API key and tenant as `/v1`.
 *
 * Which project a call is about travels with it: `X-Shared-Ctx-Project` (the JSON of
 * shared-ctx.config.json: modules, hooks, subject) and `X-Shared-Ctx-Root` (the client's project
 * root; default the input's `cwd`) for a server on another machine; without them the server reads
 * the project from its own disk, from the input's `cwd` up, as the command hook does. The subject
 * is `?subject=`, else the project's, else the root folder's name; the agent is
 * `X-Shared-Ctx-Agent` when not empty, else the input's session (see `hookAgentId`).
 */

/** The hook events answered, by the harness's event name. */
const answeredEvents: Readonly<Record<string, ClaudeCodeHookEvent>> = {
  PreToolUse: "PreToolUse",
  BeforeTool: "PreToolUse",
  PostToolUse: "PostToolUse",
  AfterTool: "PostToolUse",
  SessionStart: "SessionStart",
};

/** The project a hook call works in, as the request says. */
interface RequestProject {
  readonly root: string;
  readonly project: ProjectConfig;
  readonly subjectId: string;
}

/** Adds the hook routes to `app`. */
export function registerHookRoutes(app: Hono<ServerEnv>, options: { maxBodyBytes: number }): void {
  app.post("/hooks/:harness", async (c) => {
    const harness = c.req.param("harness");
    if (!isHarnessName(harness)) {
      throw new HttpError(404, {
        code: "not_found",
        message: `No hook route for ${JSON.stringify(harness.slice(0, 100))}: post to ${harnessNames.map((name) => `/hooks/${name}`).join(" or ")}`,
      });
    }
    const body = await readJsonBody(c.req.raw, options.maxBodyBytes);
    const raw = parseInput(body);
    const event = raw.hookEventName === undefined ? undefined : answeredEvents[raw.hookEventName];
    if (event === undefined) return c.body(null, 200);
    const input = harnessInput(harness, raw);
    const agent = hookAgentId(input, undefined, c.req.header("x-shared-ctx-agent") || undefined);
    if (!agent) {
      throw fieldError("session_id", "a hook input names its session (or send X-Shared-Ctx-Agent)");
    }
    if (
      event !== "SessionStart" &&
      editTargets(input.toolName, input.toolInput, input.cwd ?? "/").length === 0
    ) {
      return c.body(null, 200);
    }
    const setup = requestProject(c, raw);
    const answer = await answerWithin(c.get("store"), setup, agent, event, input);
    const output = harnessOutput(harness, event, answer);
    return output === undefined ? c.body(null, 200) : c.json(output);
  });
}

/** The hook input, or a 422 naming the field that is wrong. */
function parseInput(body: Record<string, unknown>): HookInput {
  try {
    return parseHookInput(JSON.stringify(body));
  } catch (error) {
    if (error instanceof HookInputError) throw fieldError(error.field, error.message);
    throw error;
  }
}

function fieldError(field: string, message: string, where = "body"): HttpError {
  return HttpError.validation([
    { type: "value_error", loc: [where, ...(field ? [field] : [])], msg: message },
  ]);
}

/**
 * The project from the request's headers (a client on another machine), else from this machine's
 * disk at the input's `cwd`. A `cwd` that is not a folder here, with no project header, is refused:
 * answering it with no modules would let every edit through unchecked.
 */
function requestProject(c: Context<ServerEnv>, input: HookInput): RequestProject {
  const header = c.req.header("x-shared-ctx-project");
  const root = c.req.header("x-shared-ctx-root") || input.cwd;
  if (root === undefined || !isAbsolute(root)) {
    throw fieldError("cwd", "the hook input needs an absolute cwd (or send X-Shared-Ctx-Root)");
  }
  let project: ProjectConfig;
  let projectRoot = root;
  try {
    if (header !== undefined) {
      project = projectFromHeader(header);
    } else {
      if (!existsSync(root)) {
        throw new HttpError(422, {
          code: "project_unknown",
          message: `The project folder ${root} is not on this server: send its modules in X-Shared-Ctx-Project (shared-ctx init claude-code --server URL writes it for a server on another machine)`,
        });
      }
      projectRoot = c.req.header("x-shared-ctx-root") || findProjectRoot(root);
      project = loadProject(projectRoot);
    }
  } catch (error) {
    if (!(error instanceof ProjectConfigError)) throw error;
    throw new HttpError(422, { code: "project_config_invalid", message: error.message });
  }
  const subjectId = c.req.query("subject") || project.subject || basename(projectRoot);
  return { root: projectRoot, project, subjectId };
}

/** The project configuration a client sent (shared-ctx.config.json's JSON). */
function projectFromHeader(text: string): ProjectConfig {
  const where = "the X-Shared-Ctx-Project header";
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ProjectConfigError(where, "", `not valid JSON (${(error as Error).message})`);
  }
  const parsed = parseProjectConfig(raw, where);
  if (parsed.modules === undefined) {
    throw new ProjectConfigError(
      where,
      "modules",
      "list the project's modules (the server cannot see its folders)",
    );
  }
  return { ...parsed, modules: parsed.modules, modulesFrom: "config" };
}

/**
 * The hook's answer within `hooks.timeoutMs`; a store that fails or is too slow gets the
 * project's `hooks.whenStoreDown` answer, as the command hook gives it.
 */
async function answerWithin(
  store: ContextStore,
  setup: RequestProject,
  agent: string,
  event: ClaudeCodeHookEvent,
  input: HookInput,
): Promise<Omit<HookAnswer, "files">> {
  const signal = AbortSignal.timeout(setup.project.hooks.timeoutMs);
  const context = {
    store,
    subjectId: setup.subjectId,
    agent,
    root: setup.root,
    project: setup.project,
    signal,
  };
  const aborted = new Promise<never>((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  const work =
    event === "PreToolUse"
      ? preToolUse(context, input)
      : event === "PostToolUse"
        ? postToolUse(context, input)
        : sessionStart(context, input);
  try {
    return await Promise.race([work, aborted]);
  } catch (error) {
    if (error instanceof HttpError) throw error;
    return storeDownAnswer(event, error, setup.project.hooks.whenStoreDown);
  }
}

/**
 * What the hook answers when the served store fails: never a silent pass (the command hook's
 * rule, `src/cli/run-hook.ts`). `allow` lets the edit through with a warning; `deny` refuses it.
 */
function storeDownAnswer(
  event: ClaudeCodeHookEvent,
  error: unknown,
  whenStoreDown: "allow" | "deny",
): Omit<HookAnswer, "files"> {
  const why =
    error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")
      ? "it did not answer in time"
      : error instanceof Error
        ? error.message
        : String(error);
  const what = `shared-ctx: the shared context server's store failed (${why})`;
  if (whenStoreDown === "deny" && event === "PreToolUse") {
    return {
      decision: "deny",
      reason: `${what}, and this project refuses edits while it cannot check them (hooks.whenStoreDown = "deny"). Instead: retry in a moment; if it persists, ask the person to look at the shared-ctx server.`,
    };
  }
  return {
    warning: `${what}; ${event === "PreToolUse" ? "this edit was NOT checked against" : "this session was not given"} the team's decisions and claims (hooks.whenStoreDown = "${whenStoreDown}").`,
  };
}
