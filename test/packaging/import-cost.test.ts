/**
 * Cold import (issue 9 item 6, docs/decisions/import-cost.md): importing the built package, and
 * creating doubles, loads none of what a test may never use. Node's fetch (undici, with http2, tls
 * and worker_threads behind it), node:http, node:zlib and node:perf_hooks, and the runtime
 * dependencies (nock, @mswjs/interceptors, msw, nanotar, yaml, ajv, re2js, fastest-levenshtein) load on first use.
 * Timings live in `npm run bench -- import`; this file checks what is loaded, not how fast.
 *
 * The ESM main entry's modules are one file, dist/core.js (scripts/build-esm.mjs), which dist/index.js
 * re-exports: the other ESM entries take the modules it contains from it, so every class and piece
 * of module state exists once whichever entries a test imports.
 *
 * Runs the built files (dist/, built here when missing, as `npm test` builds before vitest), in a
 * fresh process each, for CommonJS and ESM.
 */
import { execFileSync, execSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
/** The built package (IMPORT_COST_DIST points at another build, e.g. to see this test fail on an older one). */
const dist = resolve(root, process.env.IMPORT_COST_DIST ?? "dist");

beforeAll(() => {
  if (!existsSync(join(dist, "index.cjs"))) execSync("npx tsup", { cwd: root, stdio: "ignore" });
}, 120_000);

/** Built-in modules an import of the package need not load (the part after `NativeModule `). */
const LAZY_BUILTINS = ["internal/deps/undici/undici", "http", "https", "http2", "net", "tls", "zlib", "perf_hooks", "worker_threads"];
/** Packages an import of the package need not load. */
const LAZY_PACKAGES = ["nock", "@mswjs/interceptors", "msw", "nanotar", "yaml", "ajv", "re2js", "fastest-levenshtein"];

interface Loaded {
  readonly builtins: string[];
  readonly packages: string[];
}

/** In a fresh process: imports the entry, creates doubles, and lists what loaded since start. */
function loadedBy(entry: string): Loaded {
  const script = `
    const before = new Set(process.moduleLoadList);
    const { createRequire } = require("node:module");
    const entry = ${JSON.stringify(join(dist, entry))};
    (async () => {
      const m = entry.endsWith(".cjs") ? require(entry) : await import(entry);
      m.createDoubles({ seed: 1 }).advance("1m");
      const builtins = process.moduleLoadList.filter((x) => !before.has(x) && x.startsWith("NativeModule ")).map((x) => x.slice(13));
      const packages = [...new Set(Object.keys(require.cache).flatMap((p) => /node_modules[\\\\/]((?:@[^\\\\/]+[\\\\/])?[^\\\\/]+)/.exec(p)?.[1] ?? []))];
      process.stdout.write(JSON.stringify({ builtins, packages }));
    })();
  `;
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: root, encoding: "utf8" })) as Loaded;
}

/** Every package the ESM entry imports statically, following the relative imports of the bundle. */
function staticEsmImports(entry: string): string[] {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    // esbuild's output: `import ... from "x";` (a multi-line one ends in `} from "x";`) or `import "x";`.
    for (const match of text.matchAll(/^(?:(?:import|export|\})[^\n;]*?\bfrom\s*["']([^"']+)["']|import\s*["']([^"']+)["']);?\s*$/gm)) {
      const specifier = match[1] ?? match[2] ?? "";
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else if (!specifier.startsWith("node:")) packages.add(specifier);
    }
  };
  visit(join(dist, entry));
  return [...packages];
}

describe("importing the package loads only what it needs", () => {
  for (const entry of ["index.cjs", "index.js"]) {
    it(`${entry}: no fetch (undici), node:http, node:zlib or node:perf_hooks, and no lazy dependency`, () => {
      const loaded = loadedBy(entry);
      expect(loaded.builtins).toContain("crypto"); // the probe sees what the package loads
      expect(loaded.builtins.filter((name) => LAZY_BUILTINS.includes(name))).toEqual([]);
      expect(loaded.packages.filter((name) => LAZY_PACKAGES.includes(name))).toEqual([]);
    });
  }

  it("index.js is two files: it re-exports core.js, which imports no other file of the package", () => {
    const relativeImports = (file: string): string[] =>
      [...readFileSync(join(dist, file), "utf8").matchAll(/\bfrom\s*["'](\.[^"']*)["']|^import\s*["'](\.[^"']*)["']/gm)].map((m) => m[1] ?? m[2] ?? "");
    expect(relativeImports("index.js")).toEqual(["./core.js"]);
    expect(relativeImports("core.js")).toEqual([]);
  });

  it("index.js imports no runtime dependency statically (they load on first use, as in CommonJS)", () => {
    const packages = staticEsmImports("index.js");
    expect(packages.filter((name) => LAZY_PACKAGES.some((lazy) => name === lazy || name.startsWith(`${lazy}/`)))).toEqual([]);
  });
});

describe("the ESM entries share the main entry's modules", () => {
  /** Entries whose exports are compared (the vitest entry needs a running Vitest; the CLI exports nothing). */
  const ENTRIES = ["index", "simulator", "nock", "server", "msw", "testing", "coverage"];

  it("exports the same names as the CommonJS build, entry by entry, and one instance of what both hold", () => {
    const script = `
      const { createRequire } = await import("node:module");
      const require = createRequire(${JSON.stringify(join(dist, "index.cjs"))});
      const dist = ${JSON.stringify(dist)};
      const names = {};
      for (const entry of ${JSON.stringify(ENTRIES)}) {
        const esm = Object.keys(await import(dist + "/" + entry + ".js")).sort();
        const cjs = Object.keys(require(dist + "/" + entry + ".cjs")).filter((k) => k !== "__esModule").sort();
        names[entry] = { esm, cjs };
      }
      const index = await import(dist + "/index.js");
      const simulator = await import(dist + "/simulator.js");
      const nock = await import(dist + "/nock.js");
      const server = await import(dist + "/server.js");
      const coverage = await import(dist + "/coverage.js");
      const same = {
        UsageError: simulator.UsageError === index.UsageError,
        ManualClock: simulator.ManualClock === index.ManualClock,
        interceptWithNock: nock.interceptWithNock === index.interceptWithNock,
        startServer: server.startServer === index.startServer,
        mergeCoverage: coverage.mergeCoverage === index.mergeCoverage,
      };
      process.stdout.write(JSON.stringify({ names, same }));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" })) as {
      names: Record<string, { esm: string[]; cjs: string[] }>;
      same: Record<string, boolean>;
    };
    for (const entry of ENTRIES) {
      expect(out.names[entry]?.esm, entry).toEqual(out.names[entry]?.cjs);
      expect(out.names[entry]?.esm.length, entry).toBeGreaterThan(0);
    }
    expect(out.same).toEqual({ UsageError: true, ManualClock: true, interceptWithNock: true, startServer: true, mergeCoverage: true });
  });
});
