#!/usr/bin/env node
/**
 * The API reference, generated from the TSDoc by TypeDoc (typedoc.json) into docs/api/.
 *   node scripts/api-docs.mjs          regenerate docs/api/
 *   node scripts/api-docs.mjs --check  regenerate into a temporary folder and fail (exit 1) when
 *                                      docs/api/ differs: CI keeps the reference in step with the code.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const check = process.argv.includes("--check");
const committed = join(root, "docs", "api");
const out = check ? mkdtempSync(join(tmpdir(), "infra-doubles-api-")) : committed;

execFileSync(process.execPath, [join(root, "node_modules", "typedoc", "bin", "typedoc"), "--out", out, "--logLevel", "Error"], { cwd: root, stdio: "inherit" });

if (check) {
  const files = (dir) => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
  const listing = (dir) => files(dir).map((f) => relative(dir, f)).sort();
  const want = listing(out);
  const have = listing(committed);
  const differ = [...new Set([...want, ...have])].filter((f) => !want.includes(f) || !have.includes(f) || !readFileSync(join(out, f)).equals(readFileSync(join(committed, f))));
  rmSync(out, { recursive: true, force: true });
  if (differ.length > 0) {
    console.error(`docs/api/ is out of step with the TSDoc (${differ.length} files differ: ${differ.slice(0, 5).join(", ")}${differ.length > 5 ? ", ..." : ""}).\nRun \`npm run api-docs\` and commit docs/api/.`);
    process.exit(1);
  }
  console.log(`docs/api/ is in step with the TSDoc (${want.length} files).`);
}
