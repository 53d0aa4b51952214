/**
 * scripts/fix-dts-namespaces.mjs (run by `npm run build` after tsup): a namespace member declared
 * in another declaration chunk is re-exported as the imported binding, not `typeof <a type>`
 * (which a consumer's type check rejects with TS2693).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), "../../scripts/fix-dts-namespaces.mjs");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// The shape tsup's rollup-plugin-dts writes for `export * as selector` when AndExpression and
// MATCH_OPERATORS live in a shared chunk and CompiledSelector in this file.
const BUNDLED = [
  "import { A as AndExpression, i as MATCH_OPERATORS } from './doubles-X.js';",
  "",
  "interface CompiledSelector { readonly text: string }",
  "declare const index$3_AndExpression: typeof AndExpression;",
  "type index$3_CompiledSelector = CompiledSelector;",
  "declare const index$3_MATCH_OPERATORS: typeof MATCH_OPERATORS;",
  "declare namespace index$3 {",
  "  export { index$3_AndExpression as AndExpression, type index$3_CompiledSelector as CompiledSelector, index$3_MATCH_OPERATORS as MATCH_OPERATORS };",
  "}",
  "export { index$3 as selector };",
  "",
].join("\n");

describe("fix-dts-namespaces", () => {
  it("re-exports namespace members imported from another chunk as the imported binding", () => {
    const dir = mkdtempSync(join(tmpdir(), "fix-dts-"));
    dirs.push(dir);
    writeFileSync(join(dir, "index.d.ts"), BUNDLED);
    writeFileSync(join(dir, "index.d.cts"), BUNDLED);
    execFileSync(process.execPath, [SCRIPT, dir]);
    for (const name of ["index.d.ts", "index.d.cts"]) {
      const text = readFileSync(join(dir, name), "utf8");
      expect(text).not.toContain("typeof AndExpression");
      expect(text).not.toContain("typeof MATCH_OPERATORS");
      expect(text).toContain("export { AndExpression as AndExpression, type index$3_CompiledSelector as CompiledSelector, MATCH_OPERATORS as MATCH_OPERATORS };");
      expect(text).toContain("type index$3_CompiledSelector = CompiledSelector;");
    }
  });

  it("leaves a file without such members unchanged", () => {
    const dir = mkdtempSync(join(tmpdir(), "fix-dts-"));
    dirs.push(dir);
    const local = "interface A { a: 1 }\ndeclare const index_A: typeof A;\nexport {};\n";
    writeFileSync(join(dir, "other.d.ts"), local);
    execFileSync(process.execPath, [SCRIPT, dir]);
    expect(readFileSync(join(dir, "other.d.ts"), "utf8")).toBe(local);
  });
});
