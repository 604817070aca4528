import { tmpdir } from "node:os";
import type { HookInput } from "../hooks/hook-input.js";
import type { CliDeps } from "./cli-deps.js";

/**
 * A Bash call watched through the working tree (see hooks/worktree-snapshot.ts): its
 * `PreToolUse` keeps a snapshot, its `PostToolUse` compares, so what the command really wrote is
 * known whatever its shape. Outside a git work tree (or when git cannot tell) nothing is kept and
 * the call is judged by the parser alone.
 * @returns at `post-tool-use`, the files the call wrote (absolute); undefined when unknown (no
 *   snapshot before it, not a work tree) and at `pre-tool-use`
 */
export async function watchBashCall(
  name: "pre-tool-use" | "post-tool-use",
  input: HookInput,
  root: string,
  agent: string,
  deps: Pick<CliDeps, "env">,
): Promise<string[] | undefined> {
  const [snapshots, kept, { realPathOf }, { join }] = await Promise.all([
    import("../hooks/worktree-snapshot.js"),
    import("../hooks/bash-snapshots.js"),
    import("../hooks/real-paths.js"),
    import("node:path"),
  ]);
  const top = snapshots.workTreeTopOf(realPathOf(root));
  if (top === undefined) return undefined;
  const user = typeof process.getuid === "function" ? String(process.getuid()) : "user";
  const folder = kept.snapshotFolder(deps.env.TMPDIR || tmpdir(), user);
  const key = { top, session: agent, toolUseId: input.toolUseId ?? "" };
  if (name === "pre-tool-use") {
    const before = snapshots.takeSnapshot(top);
    if (before) kept.keepSnapshot(folder, key, before, Date.now());
    return undefined;
  }
  const before = kept.takeKeptSnapshot(folder, key);
  if (before === undefined) return undefined;
  const after = snapshots.takeSnapshot(top, Object.keys(before.entries));
  if (after === undefined) return undefined;
  return snapshots.changedFiles(before, after).map((path) => join(top, path));
}
