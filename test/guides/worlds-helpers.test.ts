/**
 * The Go helper and the pytest fixture printed in docs/guides/run-parallel-suites-against-one-server.md
 * are the files CI runs (scripts/clients/worlds/, through scripts/clients/run.mjs worlds-go and
 * worlds-pytest): each guide block equals its file after the file's header (the Go file's
 * `package` line, the Python file's leading comment lines).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const root = new URL("../..", import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), "utf8");

/** The fenced blocks of `lang` in `markdown`, in order. */
function blocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```$", "gm"))].map((match) => (match[1] ?? "").replace(/\n$/, ""));
}

describe("the worlds helpers in the guide are the ones CI runs", () => {
  const guide = read("docs/guides/run-parallel-suites-against-one-server.md");

  it("Go: the guide's first go block is scripts/clients/worlds/helper_test.go after its package line", () => {
    const file = read("scripts/clients/worlds/helper_test.go");
    const body = file.slice(file.indexOf("\npackage worlds\n") + "\npackage worlds\n".length).replace(/^\n+|\n+$/g, "");
    expect(blocks(guide, "go")[0]).toBe(body);
  });

  it("Python: the guide's first python block is scripts/clients/worlds/conftest.py after its leading comment", () => {
    const lines = read("scripts/clients/worlds/conftest.py").split("\n");
    const first = lines.findIndex((line) => !line.startsWith("#"));
    expect(blocks(guide, "python")[0]).toBe(lines.slice(first).join("\n").replace(/^\n+|\n+$/g, ""));
  });
});
