/**
 * The type declarations hold one declaration of each class for `import` and `require` resolution
 * (issue 22 item 10, scripts/share-dts.mjs): a `"type": "commonjs"` TypeScript project that imports
 * `infra-doubles` statically and `infra-doubles/msw` with `await import()` failed to type-check
 * (`Types have separate declarations of a private property 'definitions'`), each resolution reading
 * its own copy of the shared declaration chunks.
 *
 * Type-checks the consumer files in test/packaging/types-consumer/ (a CommonJS module mixing both
 * resolutions; an ES module using msw, fast-check and vitest beside the entries) with the
 * project's TypeScript, `module: "nodenext"`, `skipLibCheck: false`, against the built declarations
 * (dist/, built when missing, as `npm test` builds before vitest), installed in a temporary
 * consumer as a symlink to the package. .ci/run checks the same files in its packed-tarball consumer.
 *
 * The vitest entry's test context (vitest-context.mts, vitest-context.cts): `useDoubles()`'s
 * `({ doubles }) => ...`, as docs/guides/run-tests-concurrently.md prints it, types in a consumer's
 * test file through the entry's `declare module "vitest"` augmentation, also when the program's
 * first file (esm.mts here) imports infra-doubles/vitest before vitest: it failed then with
 * `Property 'doubles' does not exist on type 'TestContext'` until the declarations referenced
 * vitest's types (scripts/share-dts.mjs). An augmentation reaches only the vitest the package
 * resolves, so the consumer's peers are the package's own when it has them.
 */
import { execFileSync, execSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
/** The package whose declarations are checked (DECLARATIONS_PACKAGE: another one, e.g. an older build, with its own node_modules). */
const pkg = resolve(process.env.DECLARATIONS_PACKAGE ?? root);
const fixtures = join(import.meta.dirname, "types-consumer");
let consumer = "";

beforeAll(() => {
  if (!existsSync(join(pkg, "dist/index.d.cts")) || !existsSync(join(pkg, "dist/msw.d.ts"))) execSync("npm run build", { cwd: root, stdio: "ignore" });
  consumer = mkdtempSync(join(tmpdir(), "infra-doubles-types-"));
  cpSync(fixtures, consumer, { recursive: true });
  mkdirSync(join(consumer, "node_modules"));
  symlinkSync(pkg, join(consumer, "node_modules", "infra-doubles"), "dir");
  // The consumer's own copies of the peer dependencies: the same files the package resolves (its
  // own node_modules' when it has them, as DECLARATIONS_PACKAGE's may).
  for (const peer of ["msw", "fast-check", "vitest"]) {
    const own = join(pkg, "node_modules", peer);
    symlinkSync(existsSync(own) ? own : join(root, "node_modules", peer), join(consumer, "node_modules", peer), "dir");
  }
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "types-consumer", private: true, type: "commonjs" }));
}, 180_000);

afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

/** `tsc --noEmit` on the given consumer files; its diagnostics, "" when it passes. */
function typeCheck(files: string[]): string {
  const tsconfig = {
    compilerOptions: {
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2022",
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ["node"],
      typeRoots: [join(root, "node_modules/@types")],
    },
    files,
  };
  writeFileSync(join(consumer, "tsconfig.json"), JSON.stringify(tsconfig));
  try {
    execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: consumer, encoding: "utf8" });
    return "";
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

describe("a consumer's type check against the built declarations", () => {
  const files = ["mixed-resolution.cts", "esm.mts", "vitest-context.mts", "vitest-context.cts"];
  /** One tsc run for all the files (a program takes 10-25 s here); each test reads its file's lines. */
  let diagnostics: string[] = [];
  beforeAll(() => {
    diagnostics = typeCheck(files).split("\n").filter((line) => line.trim() !== "");
  }, 180_000);
  const of = (file: string): string => {
    const start = diagnostics.findIndex((line) => line.startsWith(file));
    return start < 0 ? "" : diagnostics.slice(start).filter((line, i) => i === 0 || !/^\S/.test(line) || line.startsWith(file)).join("\n");
  };

  it("a CommonJS module passes values from a require-resolved entry to import()-resolved ones", () => {
    expect(of("mixed-resolution.cts")).toBe("");
  });

  it("an ES module passes the entries' values to its own msw, fast-check and vitest", () => {
    expect(of("esm.mts")).toBe("");
  });

  it("an ES module's tests take useDoubles()'s doubles from their context: ({ doubles }) => ...", () => {
    expect(of("vitest-context.mts")).toBe("");
  });

  it("so do a CommonJS module's tests", () => {
    expect(of("vitest-context.cts")).toBe("");
  });

  it("nothing else fails", () => {
    expect(diagnostics.filter((line) => /^\S/.test(line) && !files.some((file) => line.startsWith(file)))).toEqual([]);
  });
});
