import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FatalError } from "../../../src/cli/fatal-error.js";
import { rejectionOf } from "../../support/rejection.js";
import { captureDeps, serveProgram, waitForText } from "../../support/serve-program.js";
import { useTempDir } from "../../support/temp-dir.js";

const failure = (work: Promise<unknown>) => rejectionOf(work, FatalError);

describe("shared-ctx serve: closed doors", () => {
  const tempDir = useTempDir("serve-doors-");

  it("refuses --host 0.0.0.0 without a key (exit 2), before opening the database", async () => {
    const cwd = tempDir();
    const { deps } = captureDeps({}, cwd, new AbortController().signal);
    const error = await failure(
      serveProgram(deps).parseAsync(["serve", "--port", "0", "--host", "0.0.0.0", "--db", "x.db"], {
        from: "user",
      }),
    );
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(/^refusing to serve 0\.0\.0\.0 without an API key/);
    expect(error.message).toContain("--insecure-no-auth");
  });

  it("serves 0.0.0.0 open with --insecure-no-auth, and says so on stderr", async () => {
    const cwd = tempDir();
    const controller = new AbortController();
    const { deps, out, err } = captureDeps({}, cwd, controller.signal);
    const running = serveProgram(deps).parseAsync(
      ["serve", "--port", "0", "--host", "0.0.0.0", "--db", "x.db", "--insecure-no-auth"],
      { from: "user" },
    );
    await waitForText(out, /listening on/);
    expect(err()).toContain("warning: --insecure-no-auth");
    controller.abort();
    await running;
  });

  it("serves tenant keys from --tenant-keys, each reaching only its tenants", async () => {
    const cwd = tempDir();
    writeFileSync(
      join(cwd, "keys.json"),
      JSON.stringify({ keys: [{ key: "key-a-0123456789ab", tenants: ["a"] }] }),
    );
    const controller = new AbortController();
    const { deps, out } = captureDeps({}, cwd, controller.signal);
    const running = serveProgram(deps).parseAsync(
      ["serve", "--port", "0", "--db", "x.db", "--tenant-keys", "keys.json"],
      { from: "user" },
    );
    const [, url] = await waitForText(out, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect(out()).toContain("tenant keys: 1");
    const get = (tenant: string) =>
      fetch(`${url}/v1/subjects`, {
        headers: { "X-API-Key": "key-a-0123456789ab", "X-Tenant-ID": tenant },
      });
    expect((await get("a")).status).toBe(200);
    expect((await get("b")).status).toBe(403);
    expect((await fetch(`${url}/v1/subjects`)).status).toBe(401);
    controller.abort();
    await running;
  });

  it.each([
    ["not JSON", "{", /^invalid tenant keys file .*keys\.json: not JSON/],
    ["no keys", "{}", /: no "keys" array/],
    [
      "no tenants",
      '{"keys":[{"key":"k-0123456789abcdef","tenants":[]}]}',
      /keys\[0\]\.tenants is not/,
    ],
    [
      "a key twice",
      '{"keys":[{"key":"k-0123456789abcdef","tenants":["a"]},\n{"key":"k-0123456789abcdef","tenants":["b"]}]}',
      /line 2: keys\[1\]\.key appears twice/,
    ],
  ])("refuses a tenant keys file with %s, naming it (exit 2)", async (_label, text, pattern) => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "keys.json"), text);
    const { deps } = captureDeps({}, cwd, new AbortController().signal);
    const error = await failure(
      serveProgram(deps).parseAsync(["serve", "--port", "0", "--tenant-keys", "keys.json"], {
        from: "user",
      }),
    );
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(pattern);
    expect(error.message).toContain(join(cwd, "keys.json"));
  });

  it("names a tenant keys file that is missing or not a regular file", async () => {
    const cwd = tempDir();
    const { deps } = captureDeps({}, cwd, new AbortController().signal);
    const missing = await failure(
      serveProgram(deps).parseAsync(["serve", "--port", "0", "--tenant-keys", "nope.json"], {
        from: "user",
      }),
    );
    expect(missing.message).toBe(
      `cannot read the tenant keys file ${join(cwd, "nope.json")} (ENOENT)`,
    );
    const device = await failure(
      serveProgram(deps).parseAsync(["serve", "--port", "0", "--tenant-keys", "/dev/zero"], {
        from: "user",
      }),
    );
    expect(device.message).toContain("/dev/zero: not a regular file");
  });

  it("names a --db path whose folder cannot be created", async () => {
    const cwd = tempDir();
    const { deps } = captureDeps({}, cwd, new AbortController().signal);
    const error = await serveProgram(deps)
      .parseAsync(["serve", "--port", "0", "--db", "/proc/nope/x.db"], { from: "user" })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toMatchObject({ name: "DbPathError", folder: "/proc/nope" });
  });

  it("says which folders it created for the database", async () => {
    const cwd = tempDir();
    const controller = new AbortController();
    const { deps, out, err } = captureDeps({}, cwd, controller.signal);
    const running = serveProgram(deps).parseAsync(["serve", "--port", "0", "--db", "a/b/x.db"], {
      from: "user",
    });
    await waitForText(out, /listening on/);
    expect(err()).toContain(`created folder ${join(cwd, "a")}\n`);
    expect(err()).toContain(`created folder ${join(cwd, "a", "b")}\n`);
    controller.abort();
    await running;
  });
});
