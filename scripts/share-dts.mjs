// One declaration of everything for `import` and `require` resolution alike (issue 22 item 10).
//
// tsup writes the declarations twice, dist/*.d.ts (ESM, the `import` condition) and dist/*.d.cts
// (CommonJS, `require`), each set with its own shared chunks. A project that reaches one entry
// through `require` resolution and another through `import` (a `"type": "commonjs"` TypeScript
// project that imports `infra-doubles` statically and `await import("infra-doubles/msw")`) then
// saw two declarations of every shared class, and a class with private members is not assignable
// to its twin: `Doubles` from `infra-doubles` could not be passed to `mswHandlers` (`Types have
// separate declarations of a private property 'definitions'`).
//
// So the .d.cts set is the only one: each ESM entry's declaration file becomes
// `export * from "./<entry>.cjs"` (TypeScript resolves it to <entry>.d.cts; an ES module may import
// a CommonJS one, not the reverse), and the ESM chunks, which nothing refers to any more, are
// removed. An entry whose declarations must be read as an ES module keeps them in its .d.ts, copied
// from its .d.cts so that they too take every shared declaration from the .d.cts chunks (only what
// the entry file itself declares is then written twice, and no other declaration file imports it):
// - one that imports another package's types (msw, fast-check, vitest): those packages ship ESM and
//   CommonJS declarations too, and an ES module consumer passing `mswHandlers(doubles)` to its own
//   msw's `setupServer`, or `createRunBody()` to its own fast-check, needs the ESM ones;
// - one with a module augmentation (`declare module "vitest"`): it must resolve the module it
//   augments as an ES module importer does (vitest's index.d.cts only re-exports its ESM types, and
//   an augmentation does not reach through `export *`);
// - one with a default export (the coverage entry's global setup): `export *` leaves `default` out,
//   and the default an ES module imports from a CommonJS one is its whole `module.exports`.
//
// The entries are the `exports` of the package.json in the given directory (default: the working
// directory) with both an `import.types` and a `require.types`.
// Run after tsup and fix-dts-namespaces.mjs (`npm run build`).
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** A package import (not node:, not relative), a module augmentation or a default export. */
function readAsEsm(declarations) {
  return /^(?:import|export)\b[^;]*?\bfrom '(?!node:|\.)[^']+';$|^import '(?!node:|\.)[^']+';$/m.test(declarations) || /^declare module ["']/m.test(declarations) || /^export default |^export \{[^}]*\bas default\b/m.test(declarations);
}

const root = resolve(process.argv[2] ?? ".");
const { exports = {} } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const kept = new Set();
const dirs = new Set();
let reexported = 0;
let copied = 0;

for (const [subpath, target] of Object.entries(exports)) {
  const esm = target?.import?.types;
  const cjs = target?.require?.types;
  const runtime = target?.require?.default;
  if (typeof esm !== "string" || typeof cjs !== "string" || typeof runtime !== "string") continue;
  const esmFile = resolve(root, esm);
  const cjsFile = resolve(root, cjs);
  if (!esmFile.endsWith(".d.ts") || !cjsFile.endsWith(".d.cts") || dirname(esmFile) !== dirname(cjsFile)) {
    throw new Error(`share-dts: "${subpath}": expected <name>.d.ts and <name>.d.cts side by side, got ${esm} and ${cjs}`);
  }
  if (dirname(resolve(root, runtime)) !== dirname(cjsFile)) throw new Error(`share-dts: "${subpath}": ${runtime} is not beside ${cjs}`);
  if (!existsSync(cjsFile)) throw new Error(`share-dts: "${subpath}": ${cjs} is missing (run tsup first)`);
  let declarations = readFileSync(cjsFile, "utf8");
  // A module augmentation (`declare module "vitest"`) of a package's re-exported interface (vitest's
  // TestContext is @vitest/runner's) took effect only when the package's declarations came before it
  // in the consumer's program: a consumer whose first file imported infra-doubles/vitest before
  // vitest got `Property 'doubles' does not exist on type 'TestContext'` (issue 22). The declarations
  // import nothing from it (tsup drops the source's reference), so they reference its types first.
  const augmented = [...new Set(Array.from(declarations.matchAll(/^declare module ["']((?!node:|\.)[^"']+)["']/gm), (match) => match[1]))];
  const references = augmented.filter((name) => !declarations.includes(`/// <reference types="${name}" />`)).map((name) => `/// <reference types="${name}" />\n`).join("");
  if (references !== "") writeFileSync(cjsFile, (declarations = references + declarations));
  if (readAsEsm(declarations)) {
    const name = basename(runtime);
    const importers = readdirSync(dirname(cjsFile)).filter((file) => file.endsWith(".d.cts") && new RegExp(`from '\\./${name.replace(/[.$]/g, "\\$&")}'`).test(readFileSync(join(dirname(cjsFile), file), "utf8")));
    if (importers.length > 0) throw new Error(`share-dts: "${subpath}" must be read as an ES module, but ${importers.join(", ")} import(s) its declarations: they would exist twice`);
    writeFileSync(esmFile, `// ${basename(cjsFile)}'s declarations, read as an ES module (scripts/share-dts.mjs).\n${declarations}`);
    copied += 1;
  } else {
    writeFileSync(esmFile, `// One declaration of each type for import and require (scripts/share-dts.mjs).\nexport * from "./${basename(runtime)}";\n`);
    reexported += 1;
  }
  kept.add(esmFile);
  dirs.add(dirname(esmFile));
}

let removed = 0;
for (const dir of dirs) {
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".d.ts") || kept.has(join(dir, name))) continue;
    rmSync(join(dir, name));
    removed += 1;
  }
}

console.log(`share-dts: ${reexported} ESM entry declaration(s) re-export their .d.cts, ${copied} copied (read as ES modules), ${removed} ESM chunk(s) removed`);
