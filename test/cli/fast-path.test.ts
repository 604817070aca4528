import { describe, expect, it } from "vitest";
import { parseFastCommand } from "../../src/cli/fast-path.js";

describe("parseFastCommand", () => {
  describe("hook <name>", () => {
    it.each(["pre-tool-use", "post-tool-use", "session-start"])("recognises %s", (name) => {
      expect(parseFastCommand(["hook", name])).toEqual({ command: "hook", name, options: {} });
    });

    it("reads every flag the hook commands take, as --flag value and --flag=value", () => {
      expect(
        parseFastCommand([
          "hook",
          "pre-tool-use",
          "--subject",
          "acme",
          "--root=/repo",
          "--agent",
          "alice",
          "--db",
          "x.db",
          "--store",
          "statewave",
          "--url",
          "http://127.0.0.1:8100",
          "--database-url=postgres://u@h/d",
        ]),
      ).toEqual({
        command: "hook",
        name: "pre-tool-use",
        options: {
          subject: "acme",
          root: "/repo",
          agent: "alice",
          db: "x.db",
          store: "statewave",
          url: "http://127.0.0.1:8100",
          databaseUrl: "postgres://u@h/d",
        },
      });
    });

    it("reads --harness (a known harness only: anything else is the full CLI's to refuse) and --server", () => {
      expect(
        parseFastCommand([
          "hook",
          "pre-tool-use",
          "--harness",
          "gemini-cli",
          "--server=http://127.0.0.1:8100",
        ]),
      ).toEqual({
        command: "hook",
        name: "pre-tool-use",
        options: { harness: "gemini-cli", server: "http://127.0.0.1:8100" },
      });
      expect(parseFastCommand(["hook", "pre-tool-use", "--harness", "cursor"])).toBeUndefined();
    });

    it("keeps the last of a repeated flag, as commander does", () => {
      expect(
        parseFastCommand(["hook", "session-start", "--subject", "a", "--subject", "b"]),
      ).toMatchObject({ options: { subject: "b" } });
    });
  });

  describe("check", () => {
    it("reads --agent, a variadic --path and --tool (default edit)", () => {
      expect(
        parseFastCommand(["check", "--agent", "a", "--path", "x.ts", "y.ts", "--path=z.ts"]),
      ).toEqual({
        command: "check",
        options: { agent: "a", path: ["x.ts", "y.ts", "z.ts"], tool: "edit" },
      });
      expect(
        parseFastCommand(["check", "--path", "x.ts", "--tool", "Write", "--agent=a", "--db", "d"]),
      ).toEqual({
        command: "check",
        options: { agent: "a", path: ["x.ts"], tool: "Write", db: "d" },
      });
    });
  });

  // Left to the full CLI, which prints help and usage errors as the command table words them.
  it.each([
    [[]],
    [["demo"]],
    [["hook"]],
    [["hook", "--help"]],
    [["hook", "pre-tool-use", "--help"]],
    [["hook", "pre-tool-use", "-h"]],
    [["hook", "nope"]],
    [["hook", "constructor"]],
    [["hook", "pre-tool-use", "--bogus", "x"]],
    [["hook", "pre-tool-use", "--subject"]],
    [["hook", "pre-tool-use", "--subject", "--db", "x"]],
    [["hook", "pre-tool-use", "--store", "mongo"]],
    [["hook", "pre-tool-use", "extra"]],
    [["hook", "pre-tool-use", "--path", "x"]],
    [["check", "--agent", "a"]],
    [["check", "--path", "x.ts"]],
    [["check", "--agent", "a", "--path", "x.ts", "--help"]],
    [["check", "--agent", "a", "--path", "x.ts", "-v"]],
  ])("leaves %j to the full CLI", (argv) => {
    expect(parseFastCommand(argv)).toBeUndefined();
  });
});
