/**
 * scripts/share-dts.mjs (the last step of `npm run build`): the ESM entries' declarations take
 * every shared declaration from the .d.cts set, so `import` and `require` resolution read one copy
 * (issue 22 item 10; test/packaging/declarations.test.ts type-checks a consumer of the real build).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = resolve(import.meta.dirname, "../../scripts/share-dts.mjs");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const entry = (name: string) => ({
  import: { types: `./dist/${name}.d.ts`, default: `./dist/${name}.js` },
  require: { types: `./dist/${name}.d.cts`, default: `./dist/${name}.cjs` },
});

/** A package with the given dist/ files and entries; returns its directory. */
function fixture(files: Record<string, string>, entries: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "share-dts-"));
  dirs.push(dir);
  mkdirSync(join(dir, "dist"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "p", exports: { ...Object.fromEntries(entries.map((name) => [name === "index" ? "." : `./${name}`, entry(name)])), "./package.json": "./package.json" } }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, "dist", name), text);
  return dir;
}

const run = (dir: string): string => execFileSync(process.execPath, [SCRIPT, dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

describe("share-dts", () => {
  it("re-exports each entry's .d.cts, keeps as ES modules the entries that need it, and removes the ESM chunks", () => {
    const chunk = "declare class Simulator { private readonly definitions; }\nexport { Simulator as S };\n";
    const dir = fixture(
      {
        "sim-AAAAAAAA.d.ts": chunk,
        "sim-BBBBBBBB.d.cts": chunk,
        "index.d.ts": "export { S as Simulator } from './sim-AAAAAAAA.js';\n",
        "index.d.cts": "export { S as Simulator } from './sim-BBBBBBBB.cjs';\n",
        "msw.d.ts": "import { http } from 'msw';\nimport { S } from './sim-AAAAAAAA.js';\ndeclare function handlers(sim: S): (typeof http)[];\nexport { handlers };\n",
        "msw.d.cts": "import { http } from 'msw';\nimport { S } from './sim-BBBBBBBB.cjs';\ndeclare function handlers(sim: S): (typeof http)[];\nexport { handlers };\n",
        "coverage.d.ts": "declare function setup(): void;\nexport { setup as default };\n",
        "coverage.d.cts": "declare function setup(): void;\nexport { setup as default };\n",
      },
      ["index", "msw", "coverage"],
    );
    expect(run(dir)).toContain("1 ESM entry declaration(s) re-export their .d.cts, 2 copied (read as ES modules), 1 ESM chunk(s) removed");
    const read = (name: string) => readFileSync(join(dir, "dist", name), "utf8");
    expect(read("index.d.ts")).toContain('export * from "./index.cjs";');
    expect(read("msw.d.ts")).toContain("import { S } from './sim-BBBBBBBB.cjs';");
    expect(read("msw.d.ts")).toContain("import { http } from 'msw';");
    expect(read("coverage.d.ts")).toContain("export { setup as default };");
    expect(existsSync(join(dir, "dist", "sim-AAAAAAAA.d.ts"))).toBe(false);
    expect(read("sim-BBBBBBBB.d.cts")).toBe(chunk);
  });

  it("refuses an entry that must stay an ES module when another declaration file imports it (its declarations would exist twice)", () => {
    const dir = fixture(
      {
        "index.d.cts": "import { http } from 'msw';\nexport { http };\n",
        "index.d.ts": "",
        "other.d.cts": "export { http } from './index.cjs';\n",
        "other.d.ts": "",
      },
      ["index", "other"],
    );
    expect(() => run(dir)).toThrow(/"\." must be read as an ES module, but other\.d\.cts import\(s\) its declarations/);
  });
});
