#!/usr/bin/env node
// node scripts/import-graph.mjs [--rooms <depth>]
//
// The rooms of src/ (its folders, and each file at the root of src/) and which
// rooms each imports from, counted over every static and dynamic relative import, type-only
// imports included. Floors are counted from the bottom: a room's floor is one above the highest
// room it imports from; an import that closes a cycle cannot be placed and is printed as an arrow
// back up. docs/architecture.md quotes this output. `--rooms 2` splits rooms one folder deeper
// (context/embedded, server/compat, ...).
import { readFileSync } from "node:fs";
import path from "node:path";
import { sourceFiles } from "./source-files.mjs";

const depthArg = process.argv.indexOf("--rooms");
const depth = depthArg >= 0 ? Number(process.argv[depthArg + 1]) : 1;

/**
 * The room of a file under src/: its first `depth` folders; a file at the root of src/ is a room
 * of its own (errors.ts is the floor every room stands on, index.ts the library's front door).
 */
function roomOf(file) {
  const relative = path.relative("src", file);
  const parts = relative.split(path.sep).slice(0, -1);
  if (parts.length === 0) return relative.replace(/\.[jt]sx?$/, "");
  return parts.slice(0, depth).join("/");
}

const edges = new Map();
const rooms = new Set();
const importPattern = /(?:from\s+|import\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g;
for (const file of sourceFiles("src")) {
  const room = roomOf(file);
  rooms.add(room);
  const text = readFileSync(file, "utf8");
  for (const match of text.matchAll(importPattern)) {
    const target = path.normalize(path.join(path.dirname(file), match[1] ?? ""));
    if (!target.startsWith(`src${path.sep}`)) continue;
    const to = roomOf(target);
    if (to === room) continue;
    const key = `${room} -> ${to}`;
    edges.set(key, (edges.get(key) ?? 0) + 1);
  }
}

// Floors: repeatedly place the rooms whose imports are all placed. When none is ready, what is
// left holds a cycle: it is broken at its import with the fewest lines (the arrow back up).
const importsOf = (room) =>
  [...edges.keys()]
    .filter((key) => key.startsWith(`${room} -> `) && !backUp.includes(key))
    .map((key) => key.split(" -> ")[1]);
const floor = new Map();
const backUp = [];

/** One cycle among `left` rooms (as edge keys), found by walking imports until a room repeats. */
function cycleIn(left) {
  for (const start of left) {
    const trail = [start];
    const seen = new Set([start]);
    let room = start;
    for (;;) {
      const next = importsOf(room).find((to) => left.includes(to) && !floor.has(to));
      if (next === undefined) break;
      if (seen.has(next)) {
        const loop = [...trail.slice(trail.indexOf(next)), next];
        return loop.slice(0, -1).map((from, index) => `${from} -> ${loop[index + 1]}`);
      }
      trail.push(next);
      seen.add(next);
      room = next;
    }
  }
  return [];
}

let left = [...rooms].sort();
while (left.length > 0) {
  const ready = left.filter((room) => importsOf(room).every((to) => floor.has(to)));
  if (ready.length === 0) {
    const cycle = cycleIn(left).sort(
      (a, b) => (edges.get(a) ?? 0) - (edges.get(b) ?? 0) || a.localeCompare(b),
    );
    if (cycle[0] === undefined) break;
    backUp.push(cycle[0]);
    continue;
  }
  for (const room of ready) {
    const below = importsOf(room).map((to) => floor.get(to) ?? 0);
    floor.set(room, below.length === 0 ? 0 : Math.max(...below) + 1);
  }
  left = left.filter((room) => !floor.has(room));
}

const floors = Math.max(...floor.values()) + 1;
process.stdout.write(`${rooms.size} rooms on ${floors} floors (floor 0 imports no other room)\n`);
for (let level = floors - 1; level >= 0; level--) {
  const here = [...floor.entries()].filter(([, value]) => value === level).map(([room]) => room);
  process.stdout.write(`floor ${level}: ${here.sort().join(", ")}\n`);
}
process.stdout.write("imports (room -> room: import lines)\n");
for (const room of [...rooms].sort()) {
  const out = [...edges.entries()]
    .filter(([key]) => key.startsWith(`${room} -> `))
    .map(([key, count]) => `${key.split(" -> ")[1]} ${count}`);
  process.stdout.write(`  ${room} -> ${out.length === 0 ? "(none)" : out.join(", ")}\n`);
}
process.stdout.write(
  `arrows back up (imports that close a cycle): ${backUp.length === 0 ? "none" : ""}\n`,
);
for (const key of backUp) process.stdout.write(`  ${key} (${edges.get(key)} import lines)\n`);
