/**
 * Keeps the README honest: its quick start is the code of `quick-start.test.ts`, and every
 * relative link in the README, docs/conformance.md and the guides (docs/guides/*.md) points at a
 * file that exists.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const read = (path: string): string => readFileSync(join(root, path), "utf8");
const guides = existsSync(join(root, "docs/guides")) ? readdirSync(join(root, "docs/guides")).filter((f) => f.endsWith(".md")).map((f) => `docs/guides/${f}`) : [];

describe("the README", () => {
  it("shows the quick start exactly as test/readme/quick-start.test.ts runs it", () => {
    const readme = read("README.md");
    const start = readme.indexOf("## Quick start");
    const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(start))?.[1] ?? "";
    const test = read("test/readme/quick-start.test.ts").replace(/^\/\*\*[\s\S]*?\*\/\n/, "");
    expect(test.replace('from "../../src/index.js"', 'from "infra-doubles"')).toBe(block);
  });

  it("links only to files that exist", () => {
    for (const doc of ["README.md", "docs/conformance.md", ...guides]) {
      const text = read(doc);
      const links = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1] ?? "").filter((l) => !/^[a-z]+:/.test(l));
      for (const link of links) expect(existsSync(join(root, dirname(doc), link)), `${doc} -> ${link}`).toBe(true);
    }
  });

  it("names only documents that the repository and the package both have", () => {
    // Regression (issue 7): the README pointed at spec/*.md and FIDELITY.md, which neither has.
    const shipped = (JSON.parse(read("package.json")) as { files: string[] }).files;
    for (const doc of ["README.md", "docs/conformance.md"]) {
      const text = read(doc);
      const linked = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1] ?? "").filter((l) => !/^[a-z]+:/.test(l));
      const named = [...text.matchAll(/`([\w./-]+\.md)`/g)].map((m) => m[1] ?? "");
      for (const path of [...linked.map((l) => join(dirname(doc), l)), ...named]) {
        const file = join(root, path);
        expect(existsSync(file), `${doc} names ${path}, which the repository does not have`).toBe(true);
        const relative = file.slice(root.length + 1);
        expect(shipped.some((entry) => relative === entry || relative.startsWith(`${entry}/`)), `${doc} names ${relative}, which the package does not ship`).toBe(true);
      }
    }
  });
});
