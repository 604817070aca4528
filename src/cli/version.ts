import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The version in package.json, read once (dist/cli/version.js sits two folders below it). */
export function packageVersion(): string {
  const url = new URL("../../package.json", import.meta.url);
  const parsed: unknown = JSON.parse(readFileSync(url, "utf8"));
  if (typeof parsed === "object" && parsed !== null && "version" in parsed) {
    return String(parsed.version);
  }
  return "0.0.0";
}

/**
 * The folder shared-ctx runs from (the one holding package.json and bin/): a clone, or
 * `node_modules/shared-ctx` of a project that installed it. Like {@link packageVersion}, resolved
 * from dist/cli (or a bundle chunk beside it), two folders below.
 */
export function packageRoot(): string {
  return fileURLToPath(new URL("../../", import.meta.url));
}
