/**
 * No module of src imports itself back through others (type-only imports included): a circle makes
 * load order matter in the CommonJS build and hides which layer owns a type.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "../../src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Relative imports and re-exports of `file`, as source paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']/g)) {
    found.push(normalize(join(dirname(file), (match[1] as string).replace(/\.js$/, ".ts"))));
  }
  return found;
}

/** Every cycle's members (strongly connected components of more than one module, or a self-import). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const members: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        members.push(w);
      } while (w !== v);
      if (members.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(members.map((m) => relative(SRC, m)).sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe("module graph of src", () => {
  const graph = new Map(sources(SRC).map((file) => [normalize(file), importsOf(file)]));

  it("reads the imports (sanity: the graph is not empty)", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get(normalize(join(SRC, "simulator/runs/state.ts")))).toContain(normalize(join(SRC, "simulator/runs/outcomes.ts")));
  });

  it("has no import cycles", () => {
    expect(cycles(graph)).toEqual([]);
  });
});
