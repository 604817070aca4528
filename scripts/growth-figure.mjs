#!/usr/bin/env node
// Renders the growth figures of `bench scenarios` as SVG line charts (docs/benchmarks.md):
// tokens delivered a run (the one cost rule, docs/runner.md) by team size and by history size,
// one line per mode. The figure is drawn from the bench's own JSON, nothing typed in by hand:
//
//   npx shared-ctx bench scenarios --seeds 5 --team-size 5,10,20,40 --history 8,25,100,250 \
//     --json > bench.json
//   node scripts/growth-figure.mjs bench.json --out docs/growth.svg
//
// No dependency: plain SVG text.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

const input = process.argv[2];
if (input === undefined || input.startsWith("--")) {
  process.stderr.write(
    "usage: node scripts/growth-figure.mjs <bench.json> [--out docs/growth.svg]\n",
  );
  process.exit(2);
}
const outIndex = process.argv.indexOf("--out");
const out = resolve(outIndex === -1 ? "docs/growth.svg" : process.argv[outIndex + 1]);
let bench;
try {
  bench = JSON.parse(readFileSync(input, "utf8"));
} catch (error) {
  process.stderr.write(`growth-figure: cannot read ${input}: ${error.message}\n`);
  process.exit(2);
}

const colours = {
  naive: "#9e9e9e",
  broadcast: "#e69f00",
  "group-chat": "#0072b2",
  statewave: "#009e73",
};
const panelWidth = 420;
const panelHeight = 260;
const margin = { left: 64, right: 16, top: 36, bottom: 44 };
const escapeXml = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;");
const thousands = (value) => Math.round(value).toLocaleString("en-US");

/** One panel: x = the sweep's size, y = tokens delivered a run, a line per mode. */
function panel(rows, sizeKey, title, xLabel, offsetX) {
  const sizes = [...new Set(rows.map((row) => row[sizeKey]))].sort((a, b) => a - b);
  const modes = [...new Set(rows.map((row) => row.mode))];
  const top = Math.max(1, ...rows.map((row) => row.deliveredMean));
  const plotW = panelWidth - margin.left - margin.right;
  const plotH = panelHeight - margin.top - margin.bottom;
  const x = (size) => margin.left + (sizes.indexOf(size) / Math.max(1, sizes.length - 1)) * plotW;
  const y = (value) => margin.top + plotH - (value / top) * plotH;
  const parts = [`<g transform="translate(${offsetX},0)">`];
  parts.push(`<text x="${margin.left}" y="20" font-weight="bold">${escapeXml(title)}</text>`);
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    const value = top * tick;
    parts.push(
      `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${y(value)}" y2="${y(value)}" stroke="#ddd"/>`,
      `<text x="${margin.left - 6}" y="${y(value) + 4}" text-anchor="end" font-size="11">${thousands(value)}</text>`,
    );
  }
  for (const size of sizes) {
    parts.push(
      `<text x="${x(size)}" y="${margin.top + plotH + 16}" text-anchor="middle" font-size="11">${size}</text>`,
    );
  }
  parts.push(
    `<text x="${margin.left + plotW / 2}" y="${panelHeight - 8}" text-anchor="middle" font-size="12">${escapeXml(xLabel)}</text>`,
  );
  for (const mode of modes) {
    const points = sizes
      .map((size) => rows.find((row) => row.mode === mode && row[sizeKey] === size))
      .filter((row) => row !== undefined)
      .map((row) => `${x(row[sizeKey]).toFixed(1)},${y(row.deliveredMean).toFixed(1)}`);
    parts.push(
      `<polyline fill="none" stroke="${colours[mode] ?? "#000"}" stroke-width="2" points="${points.join(" ")}"/>`,
    );
  }
  parts.push("</g>");
  return parts.join("\n");
}

const panels = [];
if ((bench.teamSizes ?? []).length > 0) {
  panels.push(["teamSize", "Tokens delivered a run, by team", "coders"]);
}
if ((bench.histories ?? []).length > 0) {
  panels.push(["history", "Tokens delivered a run, by history", "decisions before a joiner"]);
}
if (panels.length === 0) {
  process.stderr.write(
    `growth-figure: ${input} has no sweep (run with --team-size or --history)\n`,
  );
  process.exit(2);
}
const modes = [
  ...new Set([...(bench.teamSizes ?? []), ...(bench.histories ?? [])].map((row) => row.mode)),
];
const width = panelWidth * panels.length;
const height = panelHeight + 28;
const legend = modes
  .map(
    (mode, index) =>
      `<g transform="translate(${margin.left + index * 120},${panelHeight + 8})"><rect width="14" height="4" y="-4" fill="${colours[mode] ?? "#000"}"/><text x="20" y="0" font-size="12">${escapeXml(mode)}</text></g>`,
  )
  .join("\n");
const svg = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="13">`,
  "<title>Tokens delivered a run under one cost rule, by team size and by history, per mode</title>",
  `<rect width="100%" height="100%" fill="#fff"/>`,
  ...panels.map(([key, title, label], index) =>
    panel(
      key === "teamSize" ? bench.teamSizes : bench.histories,
      key,
      title,
      label,
      index * panelWidth,
    ),
  ),
  legend,
  `<text x="${width - 8}" y="${height - 6}" text-anchor="end" font-size="10" fill="#666">bench scenarios --seeds ${bench.seeds}; one cost rule (docs/runner.md)</text>`,
  "</svg>",
].join("\n");
writeFileSync(out, `${svg}\n`);
process.stdout.write(`growth-figure: wrote ${out}\n`);
