import { readFileSync } from "node:fs";

/** The version in package.json, read once (dist/cli/version.js sits two folders below it). */
export function packageVersion(): string {
  const url = new URL("../../package.json", import.meta.url);
  const parsed: unknown = JSON.parse(readFileSync(url, "utf8"));
  if (typeof parsed === "object" && parsed !== null && "version" in parsed) {
    return String(parsed.version);
  }
  return "0.0.0";
}
