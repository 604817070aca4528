import { describe, expect, it } from "vitest";
import { bashWriteTargets, editTargets } from "../../src/hooks/edit-targets.js";

describe("editTargets", () => {
  it.each([
    ["Edit", { file_path: "/repo/src/a.ts", old_string: "a", new_string: "b" }, ["/repo/src/a.ts"]],
    ["Write", { file_path: "/repo/src/a.ts", content: "x" }, ["/repo/src/a.ts"]],
    ["MultiEdit", { file_path: "/repo/src/a.ts", edits: [] }, ["/repo/src/a.ts"]],
    ["NotebookEdit", { notebook_path: "/repo/nb.ipynb", new_source: "x" }, ["/repo/nb.ipynb"]],
    ["Read", { file_path: "/repo/src/a.ts" }, []],
    ["Grep", { pattern: "x" }, []],
    ["Edit", { file_path: 3 }, []],
    ["Edit", { file_path: "src/rel.ts" }, ["/repo/src/rel.ts"]],
    ["Bash", { command: "echo hi > out.txt" }, ["/repo/out.txt"]],
  ])("%s %j → %j", (tool, input, expected) => {
    expect(editTargets(tool, input, "/repo")).toEqual(expected);
  });

  it("reads nothing from a call without a tool name", () => {
    expect(editTargets(undefined, { file_path: "/a" }, "/")).toEqual([]);
  });
});

describe("bashWriteTargets", () => {
  it.each([
    ["echo x > a.txt", ["a.txt"]],
    ["echo x >> 'my file.txt'", ["my file.txt"]],
    ["npm test 2>&1 | tee log.txt", ["log.txt"]],
    ["npm test > /dev/null 2>&1", []],
    ["cat a &> both.log", ["both.log"]],
    ["rm -rf src/legacy-billing", ["src/legacy-billing"]],
    ["mv src/a.ts src/b.ts", ["src/a.ts", "src/b.ts"]],
    ["cp -r template src/new", ["src/new"]],
    ["touch a b && mkdir -p c/d", ["a", "b", "c/d"]],
    ["sed -i 's/a/b/' src/x.ts src/y.ts", ["src/x.ts", "src/y.ts"]],
    ["sed -i.bak -e 's/a/b/' src/x.ts", ["src/x.ts"]],
    ["sed 's/a/b/' src/x.ts", []],
    ["perl -pi -e 's/a/b/' src/x.ts", ["src/x.ts"]],
    ["git rm -r src/old; git mv a b", ["src/old", "a", "b"]],
    ["sudo FOO=1 rm x", ["x"]],
    ["ls -la src && cat src/a.ts | grep x", []],
    ["grep -r 'a > b' src", []],
    ['echo "a;b" > "out dir/f.txt"', ["out dir/f.txt"]],
    ["(cd sub && echo x > f)", ["f"]],
    ["cat < in.txt > out.txt", ["out.txt"]],
  ])("%s → %j", (command, expected) => {
    expect(bashWriteTargets(command)).toEqual(expected);
  });
});
