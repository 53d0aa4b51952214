/**
 * Keeps the README and the docs honest: the README is a front door under 15 KB whose code blocks
 * are the code of the tests in this folder, it reaches every guide in one hop, and every relative
 * link in the README and under docs/ points at a file that exists (and, from the README and the
 * conformance page, at one the package ships).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const read = (path: string): string => readFileSync(join(root, path), "utf8");
const testBody = (path: string): string => read(path).replace(/^\/\*\*[\s\S]*?\*\/\n/, "").replace('from "../../src/index.js"', 'from "infra-doubles"');
const linksOf = (text: string): string[] =>
  [...text.replace(/```[\s\S]*?```/g, "").matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1] ?? "").filter((l) => !/^[a-z]+:/.test(l));

function markdownUnder(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return markdownUnder(path);
    return name.endsWith(".md") ? [path] : [];
  });
}

describe("the README", () => {
  const readme = read("README.md");

  it("is a front door: under 15 KB", () => {
    expect(Buffer.byteLength(readme)).toBeLessThan(15 * 1024);
  });

  it("shows the quick start exactly as test/readme/quick-start.test.ts runs it", () => {
    const start = readme.indexOf("## Quick start");
    const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(start))?.[1] ?? "";
    expect(testBody("test/readme/quick-start.test.ts")).toBe(block);
  });

  it.each([
    ["### Run orchestration", "test/readme/example-runs.test.ts"],
    ["### Access control", "test/readme/example-access-control.test.ts"],
    ["### Secrets", "test/readme/example-secrets.test.ts"],
  ])("shows the example under %s exactly as %s runs it", (heading, file) => {
    const start = readme.indexOf(`\n${heading}`);
    expect(start, heading).toBeGreaterThan(0);
    const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(start))?.[1] ?? "";
    expect(testBody(file)).toBe(block);
  });

  it("gives a clone's two set-up commands, each running a script package.json has (issue 22 item 12)", () => {
    const start = readme.indexOf("\n## Work on this repository");
    expect(start, "a 'Work on this repository' section").toBeGreaterThan(0);
    const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start))?.[1] ?? "";
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
    for (const script of ["start", "test"]) {
      expect(block).toMatch(new RegExp(`^npm ci && npm ${script} `, "m"));
      expect(scripts[script], `package.json has no "${script}" script`).toBeDefined();
    }
  });

  it("links every guide under docs/guides, so each is one hop away", () => {
    for (const guide of markdownUnder("docs/guides")) expect(readme, `README.md does not link ${guide}`).toContain(`](${guide})`);
  });

  it("names only documents that the repository and the package both have", () => {
    // Regression (issue 7): the README pointed at spec/*.md and FIDELITY.md, which neither has.
    const shipped = (JSON.parse(read("package.json")) as { files: string[] }).files;
    for (const doc of ["README.md", "docs/conformance.md", "docs/features.md", "docs/fidelity.md"]) {
      const text = read(doc);
      const named = [...text.matchAll(/`([\w./-]+\.md)`/g)].map((m) => m[1] ?? "");
      for (const path of [...linksOf(text).map((l) => join(dirname(doc), l)), ...named]) {
        const file = join(root, path);
        expect(existsSync(file), `${doc} names ${path}, which the repository does not have`).toBe(true);
        const inPackage = relative(root, file);
        expect(shipped.some((entry) => inPackage === entry || inPackage.startsWith(`${entry}/`)), `${doc} names ${inPackage}, which the package does not ship`).toBe(true);
      }
    }
  });
});

describe("the docs", () => {
  it.each(["README.md", ...markdownUnder("docs")])("%s links only to files that exist", (doc) => {
    for (const link of linksOf(read(doc))) expect(existsSync(join(root, dirname(doc), link)), `${doc} -> ${link}`).toBe(true);
  });
});
