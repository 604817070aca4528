#!/usr/bin/env node
// node scripts/unit-sizes.mjs [--files <lines>] [--functions <lines>] [folder]
//
// Prints the units in src/ (or the folder given) past one screenful of responsibility: every file
// over 450 lines and every function, method or function-valued constant over 80 lines (counted
// from its first line to its last, comments inside included), longest first. docs/architecture.md
// quotes its output with each exception's reason or owner. Always exits 0: a list, not a gate.
import { readFileSync } from "node:fs";
import ts from "typescript";
import { sourceFiles } from "./source-files.mjs";

const args = process.argv.slice(2);
let fileLimit = 450;
let functionLimit = 80;
let root = "src";
for (let index = 0; index < args.length; index += 1) {
  const arg = args[index];
  if (arg === "--files") fileLimit = Number(args[++index]);
  else if (arg === "--functions") functionLimit = Number(args[++index]);
  else if (arg !== undefined) root = arg;
}

/** The name a reader would look for: `Class.method`, `function`, or the constant holding it. */
function nameOf(node, source) {
  const own = node.name && ts.isIdentifier(node.name) ? node.name.text : undefined;
  if (ts.isConstructorDeclaration(node)) return `${className(node)}.constructor`;
  if (ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) {
    const method = node.name ? node.name.getText(source) : "(method)";
    return `${className(node)}.${method}`;
  }
  if (own) return own;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) {
    return parent.name.text;
  }
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  return "(anonymous)";
}

function className(node) {
  const owner = node.parent;
  return owner && "name" in owner && owner.name ? owner.name.getText() : "(class)";
}

const isFunction = (node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessor(node) ||
  ts.isSetAccessor(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node);

const longFiles = [];
const longFunctions = [];
for (const file of sourceFiles(root)) {
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  if (lines > fileLimit) longFiles.push({ file, lines });
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const visit = (node) => {
    if (isFunction(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const length = last - first + 1;
      if (length > functionLimit) {
        longFunctions.push({ file, line: first + 1, name: nameOf(node, source), lines: length });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

longFiles.sort((left, right) => right.lines - left.lines);
longFunctions.sort((left, right) => right.lines - left.lines);
process.stdout.write(`files over ${fileLimit} lines in ${root}/: ${longFiles.length}\n`);
for (const { file, lines } of longFiles) process.stdout.write(`  ${lines}  ${file}\n`);
process.stdout.write(
  `functions over ${functionLimit} lines in ${root}/: ${longFunctions.length}\n`,
);
for (const { file, line, name, lines } of longFunctions) {
  process.stdout.write(`  ${lines}  ${file}:${line}  ${name}\n`);
}
