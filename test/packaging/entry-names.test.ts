/**
 * Every entry of the package exports exactly its documented names, the same in ESM and CommonJS
 * (issue 22 item 11): `Object.keys(await import("infra-doubles"))` once listed 367 names, 252 of
 * them build aliases (`__infra_10_CONTROL_PREFIX`, ...), where `require("infra-doubles")` listed 115.
 *
 * For each entry (".", "./simulator", "./nock", "./server", "./msw", "./testing", "./coverage",
 * "./vitest"), three lists must be equal: the keys of the ESM namespace (`import()` of dist/<entry>.js),
 * the keys of the CommonJS exports (`createRequire` of dist/<entry>.cjs), and the values the entry's
 * source exports (the TypeScript compiler's view of src/<entry>, the files TypeDoc documents in
 * docs/api/). Each of them must also have its heading in the entry's page of the API reference.
 *
 * Runs the built files (dist/, built when missing, as `npm test` builds before vitest) in a fresh
 * Node process.
 */
import { execFileSync, execSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
/** The built package (ENTRY_NAMES_DIST points at another build, e.g. to see this test fail on an older one). */
const dist = resolve(root, process.env.ENTRY_NAMES_DIST ?? "dist");

beforeAll(() => {
  if (!existsSync(join(dist, "index.cjs")) || !existsSync(join(dist, "vitest.js"))) execSync("npx tsup", { cwd: root, stdio: "ignore" });
}, 120_000);

/** Entry (dist/<name>.js and .cjs) -> its source (tsup.config.ts, typedoc.json) and its API reference page. */
const ENTRIES: Record<string, { readonly source: string; readonly page: string }> = {
  index: { source: "src/index.ts", page: "README.md" },
  simulator: { source: "src/simulator/index.ts", page: "simulator-1.md" },
  nock: { source: "src/interceptors/nock-entry.ts", page: "nock.md" },
  server: { source: "src/interceptors/server-entry.ts", page: "server.md" },
  msw: { source: "src/interceptors/msw-entry.ts", page: "msw.md" },
  testing: { source: "src/testing/index.ts", page: "testing.md" },
  coverage: { source: "src/vitest/coverage.ts", page: "coverage.md" },
  vitest: { source: "src/scenarios/vitest-entry.ts", page: "vitest.md" },
};

/**
 * The keys of each entry's namespace, imported both ways in one fresh process. `require("vitest")`
 * throws outside a Vitest worker by design, so the CommonJS vitest entry gets a stand-in for it (its
 * three hooks), enough to load and list its exports.
 */
function runtimeNames(): Record<string, { esm: string[]; cjs: string[] }> {
  const script = `
    const { createRequire, Module } = await import("node:module");
    const load = Module._load;
    Module._load = function (request, ...rest) {
      if (request === "vitest") return { expect: { extend() {} }, beforeEach() {}, afterEach() {} };
      return load.call(this, request, ...rest);
    };
    const require = createRequire(${JSON.stringify(join(dist, "index.cjs"))});
    const names = {};
    for (const entry of ${JSON.stringify(Object.keys(ENTRIES))}) {
      const esm = Object.keys(await import(${JSON.stringify(dist)} + "/" + entry + ".js")).sort();
      const cjs = Object.keys(require(${JSON.stringify(dist)} + "/" + entry + ".cjs")).filter((key) => key !== "__esModule").sort();
      names[entry] = { esm, cjs };
    }
    process.stdout.write(JSON.stringify(names));
  `;
  return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" })) as Record<string, { esm: string[]; cjs: string[] }>;
}

/** The value (runtime) exports of each entry's source, as the TypeScript compiler resolves them. */
function sourceValueNames(): Record<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error("tsconfig.json could not be read");
  const program = ts.createProgram(Object.values(ENTRIES).map(({ source }) => join(root, source)), { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const names: Record<string, string[]> = {};
  for (const [entry, { source }] of Object.entries(ENTRIES)) {
    const file = program.getSourceFile(join(root, source));
    const module = file && checker.getSymbolAtLocation(file);
    if (!module) throw new Error(`no module symbol for ${source}`);
    names[entry] = checker
      .getExportsOfModule(module)
      .filter((symbol) => {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        return (target.flags & ts.SymbolFlags.Value) !== 0;
      })
      .map((symbol) => symbol.name)
      .sort();
  }
  return names;
}

/** The names an API reference page documents: its `### name` headings and its namespaces' links. */
function documentedNames(page: string): Set<string> {
  const text = readFileSync(join(root, "docs/api/infra-doubles", page), "utf8");
  const headings = [...text.matchAll(/^### (.+?)(?:\(\))?$/gm)].map((match) => (match[1] ?? "").replace(/\\_/g, "_"));
  const namespaces = [...text.matchAll(/^- \[(\w+)\]\(namespaces\//gm)].map((match) => match[1] ?? "");
  return new Set([...headings, ...namespaces]);
}

describe("each entry exports exactly its documented names, in ESM and CommonJS alike", () => {
  let runtime: Record<string, { esm: string[]; cjs: string[] }>;
  let source: Record<string, string[]>;
  beforeAll(() => {
    runtime = runtimeNames();
    source = sourceValueNames();
  }, 120_000);

  it("checks every entry of package.json's exports", () => {
    const { exports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, { import?: { default?: string } } | string> };
    const entries = Object.values(exports).flatMap((target) => (typeof target === "object" && target.import?.default ? [target.import.default.replace(/^\.\/dist\/(.*)\.js$/, "$1")] : []));
    expect(entries.sort()).toEqual(Object.keys(ENTRIES).sort());
  });

  for (const [entry, { page }] of Object.entries(ENTRIES)) {
    it(`${entry}: import() and require() list the names the source exports, each in docs/api/infra-doubles/${page}`, () => {
      const { esm, cjs } = runtime[entry] ?? { esm: [], cjs: [] };
      expect(esm.filter((name) => name.startsWith("__"))).toEqual([]);
      expect(esm).toEqual(cjs);
      expect(esm).toEqual(source[entry]);
      expect(esm.length).toBeGreaterThan(0);
      const documented = documentedNames(page);
      expect(esm.filter((name) => !documented.has(name))).toEqual([]);
    });
  }
});
