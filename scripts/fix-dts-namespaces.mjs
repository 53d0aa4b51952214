// Repairs the `export * as <namespace>` blocks the declaration bundler (tsup's rollup-plugin-dts)
// writes when a namespace's members are declared in another (shared) declaration chunk.
//
// The bundler renders a namespace member whose name is unchanged as
//   declare const index$3_AndExpression: typeof AndExpression;
//   declare namespace index$3 { export { index$3_AndExpression as AndExpression, ... } }
// and only knows that `AndExpression` is a type when its interface or type alias is declared in
// the same file. Since the `testing` and `vitest` entries (which share `Doubles` with the main
// entry) moved the simulator's types into a shared chunk, those members are imports, and every
// type among them became `typeof <a type>` (TS2693, about 105 errors per file). Re-exporting the
// imported binding itself (`export { AndExpression as AndExpression }`, what the bundler already
// writes for renamed members) is right for types and values alike.
//
// Run after tsup (`npm run build`); rewrites dist/*.d.ts, *.d.cts and *.d.mts in place.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dist = process.argv[2] ?? "dist";
const escape = (text) => text.replace(/[$]/g, "\\$");
let fixed = 0;
const pending = [];

for (const name of readdirSync(dist)) {
  if (!/\.d\.[cm]?ts$/.test(name)) continue;
  const file = join(dist, name);
  let text = readFileSync(file, "utf8");
  const imported = new Set();
  for (const match of text.matchAll(/^import (?:type )?\{([^}]*)\} from '[^']+';$/gm)) {
    for (const part of (match[1] ?? "").split(",")) {
      const local = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop();
      if (local) imported.add(local);
    }
  }
  if (imported.size === 0) continue;
  let count = 0;
  text = text.replace(/^declare const ([\w$]+): typeof ([\w$]+);\n/gm, (line, alias, local) => {
    if (!imported.has(local) || !alias.endsWith(`_${local}`)) return line;
    const member = new RegExp(`(?<![\\w$])${escape(alias)} as ${escape(local)}(?![\\w$])`, "g");
    pending.push([member, `${local} as ${local}`]);
    count += 1;
    return "";
  });
  for (const [member, replacement] of pending.splice(0)) text = text.replace(member, replacement);
  if (count > 0) {
    writeFileSync(file, text);
    fixed += count;
  }
}

console.log(`fix-dts-namespaces: ${fixed} namespace member(s) re-exported from their chunk`);
