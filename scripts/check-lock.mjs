#!/usr/bin/env node
// Keeps package-lock.json installable with `npm ci`.
//
// npm lists every optional dependency of a package in the lock (rollup names 26 platform builds),
// but only writes entries for the builds the registry served. A registry that serves only some
// platforms (this project's serves the Linux gnu builds) yields a lock that `npm ci` refuses as
// "out of sync" (npm/cli#4828). This script drops optional-dependency names that have no entry in
// the lock. `--check` only reports (exit 1 when a fix is needed); `npm run fix-lock` rewrites.
import { readFileSync, writeFileSync } from "node:fs";

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const names = Object.keys(lock.packages);
const hasEntry = (dependent, name) => {
  // npm resolves from the dependent's own node_modules up to the root.
  const parts = dependent.split("node_modules/").filter(Boolean);
  for (let depth = parts.length; depth >= 0; depth--) {
    const prefix = parts.slice(0, depth).map((p) => `node_modules/${p.replace(/\/$/, "")}/`).join("");
    if (names.includes(`${prefix}node_modules/${name}`)) return true;
  }
  return false;
};
const fixes = [];
for (const [dependent, entry] of Object.entries(lock.packages)) {
  const optional = entry.optionalDependencies;
  if (!optional || dependent === "") continue;
  const missing = Object.keys(optional).filter((name) => !hasEntry(dependent, name));
  if (missing.length === 0) continue;
  fixes.push(`${dependent}: ${missing.length} optional builds not in the lock`);
  for (const name of missing) delete optional[name];
}
if (fixes.length === 0) {
  console.log("package-lock.json: every optional dependency has a lock entry");
} else if (process.argv.includes("--check")) {
  console.error(`package-lock.json would fail \`npm ci\`:\n  ${fixes.join("\n  ")}\nrun: npm run fix-lock`);
  process.exit(1);
} else {
  writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`package-lock.json fixed:\n  ${fixes.join("\n  ")}`);
}
