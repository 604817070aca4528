#!/usr/bin/env node
// Records the real demo and renders it as an animated SVG (docs/demo.svg, README's picture).
//
//   npm run record:demo            (needs tmux; the built bin: npm run build first)
//   node scripts/record-demo.mjs --columns 100 --rows 30 --out docs/demo.svg
//
// The demo runs in a detached tmux session of a fixed size, with the offline brain and a fixed
// seed (the same events every time); its screen is read with `tmux capture-pane -e` whenever it
// changes, `q` is pressed once both verdicts are in, and the ending it prints is the last frame.
// No network, no dependency: the SVG is a strip of frames moved by one CSS animation.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import stringWidth from "string-width";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : process.argv[index + 1];
}
const columns = Number(option("columns", "100"));
const rows = Number(option("rows", "30"));
const out = resolve(root, option("out", "docs/demo.svg"));
const seed = option("seed", "7");
const speed = option("speed", "10");

const tmux = (...args) => execFileSync("tmux", args, { encoding: "utf8" });
if (spawnSync("tmux", ["-V"]).status !== 0) {
  process.stderr.write("record-demo: needs tmux (apt-get install tmux)\n");
  process.exit(1);
}

const scratch = mkdtempSync(join(tmpdir(), "shared-ctx-record-"));
const session = `shared-ctx-record-${process.pid}`;
const command = [
  "env",
  "-u",
  "CI",
  "-u",
  "LLM_MODEL",
  "-u",
  "STATEWAVE_URL",
  "-u",
  "SHARED_CTX_DATABASE_URL",
  `SHARED_CTX_DB=${join(scratch, "store.db")}`,
  "TERM=xterm-256color",
  "FORCE_COLOR=2",
  process.execPath,
  join(root, "bin/shared-ctx.js"),
  "demo",
  "--seed",
  seed,
  "--speed",
  speed,
  // Keep the pane open after the demo exits, so its ending can be read.
  "; sleep 30",
].join(" ");

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const frames = [];
const capture = () => tmux("capture-pane", "-p", "-e", "-t", session);
const started = performance.now();
const keep = (screen) => {
  const at = performance.now() - started;
  if (frames.at(-1)?.screen !== screen) frames.push({ at, screen });
};

try {
  tmux("new-session", "-d", "-s", session, "-x", String(columns), "-y", String(rows), command);
  let endedAt;
  for (const deadline = performance.now() + 120_000; performance.now() < deadline; ) {
    const screen = capture();
    keep(screen);
    // The comparison's headline: a saving (on the default, coordinator-restart, it opens with the
    // restart that made the difference), a tie, a baseline that did better, or an open dispute.
    const headline =
      /Shared context saved|A coordinator restart lost|A tie|The baseline wasted less|Unresolved/;
    if (endedAt === undefined && headline.test(screen)) endedAt = performance.now();
    // Both verdicts and the comparison are in: hold them a moment, as a viewer would read them.
    if (endedAt !== undefined && performance.now() - endedAt > 2500) break;
    await sleep(120);
  }
  if (endedAt === undefined) throw new Error("the demo did not reach its comparison within 120 s");
  tmux("send-keys", "-t", session, "q");
  await sleep(1500);
  keep(capture());
} finally {
  spawnSync("tmux", ["kill-session", "-t", session]);
  rmSync(scratch, { recursive: true, force: true });
}

// --- the screen's SGR colours, per cell run --------------------------------------------------
const basic = [
  "#1e1e1e",
  "#e06c75",
  "#98c379",
  "#e5c07b",
  "#61afef",
  "#c678dd",
  "#56b6c2",
  "#d0d0d0",
  "#5c6370",
  "#ff7b86",
  "#b5e890",
  "#ffd68a",
  "#7fc1ff",
  "#de9bf0",
  "#7fd8e3",
  "#ffffff",
];
function color256(index) {
  if (index < 16) return basic[index];
  if (index < 232) {
    const value = index - 16;
    const scale = [0, 95, 135, 175, 215, 255];
    const [r, g, b] = [Math.floor(value / 36), Math.floor(value / 6) % 6, value % 6].map(
      (v) => scale[v],
    );
    return `rgb(${r},${g},${b})`;
  }
  const grey = 8 + (index - 232) * 10;
  return `rgb(${grey},${grey},${grey})`;
}
const foreground = "#d0d0d0";

/** One line of `capture-pane -e` output as runs of { text, color, bold }. */
function parseLine(line) {
  const runs = [];
  let style = { color: foreground, bold: false, dim: false };
  let text = "";
  const flush = () => {
    if (text) runs.push({ text, ...style });
    text = "";
  };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: SGR sequences are what is parsed.
  const pattern = /\u001B\[([\d;]*)m/g;
  let last = 0;
  for (const match of line.matchAll(pattern)) {
    text += line.slice(last, match.index);
    last = match.index + match[0].length;
    flush();
    const codes = (match[1] || "0").split(";").map(Number);
    for (let i = 0; i < codes.length; i += 1) {
      const code = codes[i];
      if (code === 0) style = { color: foreground, bold: false, dim: false };
      else if (code === 1) style = { ...style, bold: true };
      else if (code === 2) style = { ...style, dim: true };
      else if (code === 22) style = { ...style, bold: false, dim: false };
      else if (code === 39) style = { ...style, color: foreground };
      else if (code >= 30 && code <= 37) style = { ...style, color: basic[code - 30] };
      else if (code >= 90 && code <= 97) style = { ...style, color: basic[code - 90 + 8] };
      else if (code === 38 && codes[i + 1] === 5) {
        style = { ...style, color: color256(codes[i + 2]) };
        i += 2;
      } else if (code === 38 && codes[i + 1] === 2) {
        style = { ...style, color: `rgb(${codes[i + 2]},${codes[i + 3]},${codes[i + 4]})` };
        i += 4;
      }
    }
  }
  text += line.slice(last);
  flush();
  return runs;
}

// Nothing drawn yet (the terminal before the first frame) is not worth a frame.
while (frames.length > 1 && frames[0].screen.trim() === "") frames.shift();

// Each frame stays on screen at least a second, so a reader can read it: of the screens captured
// less than a second apart, the latest is kept (the ending always).
const minFrameMs = 1000;
const readable = [];
for (const frame of frames) {
  const previous = readable.at(-1);
  if (previous !== undefined && frame.at - previous.at < minFrameMs) {
    readable[readable.length - 1] = { at: previous.at, screen: frame.screen };
  } else readable.push(frame);
}
frames.splice(0, frames.length, ...readable);

const escapeXml = (value) =>
  value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

// --- the SVG: every frame stacked, one animation moving the strip ----------------------------
const cellWidth = 8.4;
const lineHeight = 17;
const padding = 12;
const width = Math.ceil(columns * cellWidth + padding * 2);
const height = rows * lineHeight + padding * 2;
// The last frame (the ending) and the one before it (the comparison) are held longer.
const holdMs = 4000;
const times = frames.map((frame, index) => {
  const next = frames[index + 1];
  return next ? Math.max(minFrameMs, next.at - frame.at) : holdMs;
});
const total = times.reduce((sum, ms) => sum + ms, 0);

function frameSvg(screen, index) {
  const lines = screen.replace(/\n$/, "").split("\n").slice(0, rows);
  const y0 = index * height;
  const texts = lines.map((line, row) => {
    let column = 0;
    const spans = parseLine(line).map((run) => {
      const x = padding + column * cellWidth;
      column += stringWidth(run.text);
      if (!run.text.trim()) return "";
      const weight = run.bold ? ' font-weight="bold"' : "";
      const opacity = run.dim ? ' opacity="0.6"' : "";
      return `<tspan x="${x.toFixed(1)}" fill="${run.color}"${weight}${opacity}>${escapeXml(run.text)}</tspan>`;
    });
    const y = y0 + padding + (row + 1) * lineHeight - 4;
    return spans.some(Boolean) ? `<text y="${y}">${spans.join("")}</text>` : "";
  });
  return `<g>${texts.join("")}</g>`;
}

let elapsed = 0;
const keyframes = frames
  .map((_, index) => {
    const percent = ((elapsed / total) * 100).toFixed(3);
    elapsed += times[index];
    return `${percent}%{transform:translateY(-${index * height}px)}`;
  })
  .join("");
const svg = `<svg xmlns="http://www.w3.org/2000/svg" xml:space="preserve" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="shared-ctx demo: message passing and shared context side by side">
<title>shared-ctx demo (recorded by scripts/record-demo.mjs)</title>
<style>
text{font-family:"DejaVu Sans Mono","SFMono-Regular",Menlo,Consolas,monospace;font-size:14px;white-space:pre}
.strip{animation:play ${(total / 1000).toFixed(2)}s steps(1,end) infinite}
@keyframes play{${keyframes}}
</style>
<rect width="100%" height="100%" rx="6" fill="#1e1e1e"/>
<svg x="0" y="0" width="${width}" height="${height}"><g class="strip">${frames.map((frame, index) => frameSvg(frame.screen, index)).join("\n")}</g></svg>
</svg>
`;
writeFileSync(out, svg);
process.stdout.write(
  `record-demo: ${frames.length} frames, ${(total / 1000).toFixed(1)} s, ${columns}×${rows}, ${Math.round(svg.length / 1024)} KB → ${out}\n`,
);
