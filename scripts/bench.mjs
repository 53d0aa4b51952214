#!/usr/bin/env node
// `npm run bench [-- <filter>...] [--list] [--json <file>]`: runs every row declared in
// bench/*.bench.ts (see bench/table.ts), each in a fresh Node process, and prints one table.
// A filter keeps the rows whose "file: name" contains it (case-insensitive); several filters add up.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const filters = [];
let listOnly = false;
let jsonOut;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--list") listOnly = true;
  else if (args[i] === "--json") jsonOut = args[++i];
  else filters.push(args[i].toLowerCase());
}

const work = join(root, "bench", ".build", String(process.pid));
mkdirSync(work, { recursive: true });
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

const files = readdirSync(join(root, "bench")).filter((file) => file.endsWith(".bench.ts")).sort();

/** Bundles one bench file (sources included, packages left to node_modules) with the row entry. */
async function bundle(file) {
  const outfile = join(work, file.replace(/\.ts$/, ".mjs"));
  await build({
    stdin: {
      contents: `import "./${file}";\nimport { main } from "./table.ts";\nawait main(${JSON.stringify(file)});\n`,
      resolveDir: join(root, "bench"),
      sourcefile: `${file}.entry.ts`,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    sourcemap: "inline",
    outfile,
    logLevel: "error",
    banner: { js: 'import { createRequire as __benchRequire } from "node:module"; const require = __benchRequire(import.meta.url);' },
  });
  return outfile;
}

/** Runs a bundled file in a fresh process; returns the JSON it wrote. */
function child(bundled, env) {
  const out = join(work, `out-${Math.random().toString(36).slice(2)}.json`);
  const result = spawnSync(process.execPath, ["--expose-gc", "--enable-source-maps", bundled], {
    cwd: root,
    env: { ...process.env, ...env, BENCH_OUT: out },
    stdio: ["ignore", "inherit", "pipe"],
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) return { error: (result.stderr || `exit ${result.status ?? result.signal}`).trim().split("\n").slice(0, 12).join("\n") };
  try {
    return JSON.parse(readFileSync(out, "utf8"));
  } catch {
    return { error: `no result${result.stderr ? `: ${result.stderr.trim()}` : ""}` };
  }
}

const selected = [];
for (const file of files) {
  const bundled = await bundle(file);
  const listed = child(bundled, { BENCH_MODE: "list" });
  if (listed.error) {
    selected.push({ file: file.replace(/\.bench\.ts$/, ""), name: "(loading the file)", error: listed.error });
    continue;
  }
  for (const entry of listed) {
    const haystack = `${entry.file}: ${entry.name}`.toLowerCase();
    if (filters.length === 0 || filters.some((filter) => haystack.includes(filter))) selected.push({ ...entry, bundled });
  }
}

if (listOnly) {
  for (const entry of selected) console.log(`${entry.file}: ${entry.name}${entry.target ? `  (target ${entry.target})` : ""}`);
  process.exit(0);
}
if (selected.length === 0) {
  console.error(`bench: no row matches ${filters.join(", ")} (npm run bench -- --list shows them)`);
  process.exit(1);
}

const results = [];
for (const [index, entry] of selected.entries()) {
  const result = entry.error ? entry : { ...entry, ...child(entry.bundled, { BENCH_MODE: "run", BENCH_ROW: entry.name }) };
  delete result.bundled;
  results.push(result);
  const summary = result.error ? `ERROR` : result.skipped ? `skipped: ${result.skipped}` : `${formatRatio(result)}${result.pass === undefined ? "" : result.pass ? " ok" : " FAIL"}`;
  process.stderr.write(`[${index + 1}/${selected.length}] ${result.file}: ${result.name}: ${summary}\n`);
}

function formatSeconds(seconds) {
  const [unit, scale] = seconds >= 1 ? ["s", 1] : seconds >= 1e-3 ? ["ms", 1e3] : seconds >= 1e-6 ? ["us", 1e6] : ["ns", 1e9];
  return `${significant(seconds * scale)} ${unit}`;
}
function formatRate(perSecond) {
  const [unit, scale] = perSecond >= 1e6 ? ["M/s", 1e-6] : perSecond >= 1e3 ? ["k/s", 1e-3] : ["/s", 1];
  return `${significant(perSecond * scale)} ${unit}`;
}
function significant(value) {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}
function formatFigure(result, value) {
  if (result.kind === "rate") return formatRate(1 / value);
  if (result.kind === "value") return `${significant(value)} ${result.unit ?? ""}`.trim();
  return formatSeconds(value);
}
function formatRatio(result) {
  return `${result.ratio.toFixed(2)}x`;
}

const header = ["row", "figure", "anchor", "ratio (IQR)", "target", ""];
const lines = [];
let lastFile;
for (const result of results) {
  if (result.file !== lastFile) {
    lines.push({ section: result.file });
    lastFile = result.file;
  }
  if (result.error) {
    lines.push({ cells: [`  ${result.name}`, "ERROR", "", "", result.target ?? "", "ERROR"], error: result.error });
    continue;
  }
  if (result.skipped) {
    lines.push({ cells: [`  ${result.name}`, "skipped", "", "", result.target ?? "", "skip"] });
    continue;
  }
  lines.push({
    cells: [
      `  ${result.name}${result.clock === "cpu" ? " [cpu]" : ""}`,
      formatFigure(result, result.figure),
      `${formatFigure(result, result.anchor)}  ${result.anchorLabel}`,
      `${formatRatio(result)} (${result.ratioLow.toFixed(2)}-${result.ratioHigh.toFixed(2)})`,
      result.target ?? "",
      result.pass === undefined ? "" : result.pass ? "ok" : "FAIL",
    ],
  });
}
const widths = header.map((title, column) => Math.max(title.length, ...lines.filter((line) => line.cells).map((line) => line.cells[column].length)));
const format = (cells) => cells.map((cell, column) => (column === 1 || column === 3 ? cell.padStart(widths[column]) : cell.padEnd(widths[column]))).join("  ").trimEnd();
const out = [format(header), widths.map((width) => "-".repeat(width)).join("  ")];
for (const line of lines) {
  if (line.section) out.push(`${line.section}`);
  else out.push(format(line.cells));
}
const judged = results.filter((result) => result.pass !== undefined);
const skipped = results.filter((result) => result.skipped);
const errors = results.filter((result) => result.error);
out.push("");
out.push(`${judged.filter((result) => result.pass).length} of ${judged.length} targets met; ${results.length} rows; ${skipped.length} skipped; ${errors.length} errors. Ratio = figure / anchor (rate rows: figure rate / anchor rate), median of paired rounds, IQR in brackets; [cpu]: timed in CPU time, not wall time.`);
console.log(out.join("\n"));
for (const result of skipped) console.log(`${result.file}: ${result.name}: skipped: ${result.skipped}`);
for (const result of errors) console.error(`\n${result.file}: ${result.name}:\n${result.error}`);
if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify(results, null, 2)}\n`);
process.exit(errors.length ? 1 : 0);
