#!/usr/bin/env node
// `npm run fuzz`: bundles the fuzz harness (test/fuzz/harness/cli.ts, TypeScript) with esbuild and
// runs it in this process's Node. Arguments go to the harness (`npm run fuzz -- --help`).
import { build } from "esbuild";
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "node_modules", ".cache", "infra-doubles-fuzz");
mkdirSync(outdir, { recursive: true });
const outfile = join(outdir, `cli-${process.pid}.mjs`);
await build({
  entryPoints: [join(root, "test", "fuzz", "harness", "cli.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  outfile,
  logLevel: "warning",
});
process.on("exit", () => rmSync(outfile, { force: true }));
await import(pathToFileURL(outfile).href);
