#!/usr/bin/env node
// Runs npm scripts at the same time and prints each one's output, whole, when it ends, with how
// long it took: `npm test` runs lint, typecheck and build this way (single-threaded steps, ~70 s of
// CPU in a row; on 2 cores about as long as the build alone). Exits 1 when any of them fails, after
// all have ended (so every error shows), naming the ones that failed.
// Usage: node scripts/parallel.mjs SCRIPT [SCRIPT ...]
import { spawn } from "node:child_process";

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error("usage: node scripts/parallel.mjs SCRIPT [SCRIPT ...]");
  process.exit(2);
}
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ["npm"];
const started = performance.now();

function run(name) {
  return new Promise((resolve) => {
    const begin = performance.now();
    const chunks = [];
    const child = spawn(npm[0], [...npm.slice(1), "run", name], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? (process.stdout.isTTY ? "1" : "0") } });
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.stderr.on("data", (chunk) => chunks.push(chunk));
    child.on("error", (error) => chunks.push(Buffer.from(`${error.stack ?? error}\n`)));
    child.on("close", (code, signal) => {
      const seconds = ((performance.now() - begin) / 1000).toFixed(1);
      const ok = code === 0;
      process.stdout.write(Buffer.concat(chunks));
      console.log(`${ok ? "ok" : "FAILED"}: npm run ${name} (${seconds} s${ok ? "" : `, exit ${code ?? signal}`})\n`);
      resolve({ name, ok });
    });
  });
}

const results = await Promise.all(names.map(run));
const failed = results.filter((r) => !r.ok).map((r) => r.name);
console.log(`${names.join(", ")}: ${((performance.now() - started) / 1000).toFixed(1)} s side by side${failed.length ? `; failed: ${failed.join(", ")}` : ""}`);
process.exit(failed.length ? 1 : 0);
