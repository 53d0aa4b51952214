/**
 * The state document schema ships with the package (`infra-doubles/state.schema.json`, copied to
 * dist/ by tsup, required in the tarball by .ci/run) and describes what `exportState()` writes.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { exportState } from "../../../src/scenarios/state/document.js";
import { checkStateSchema, stateSchema } from "../../../src/scenarios/state/schema.js";

const root = resolve(import.meta.dirname, "../../..");

describe("the state document schema", () => {
  it("is exported by the package, built into dist/ and required in the packed tarball", () => {
    const pkg = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as { exports: Record<string, unknown> };
    expect(pkg.exports["./state.schema.json"]).toBe("./dist/state.schema.json");
    expect(readFileSync(resolve(root, "tsup.config.ts"), "utf8")).toContain('copyFileSync("src/scenarios/state/state.schema.json", "dist/state.schema.json")');
    expect(readFileSync(resolve(root, ".ci/run"), "utf8")).toContain("package/dist/state.schema.json");
  });

  it("accepts what exportState() writes, journal included, and names version 1", () => {
    const doubles = createDoubles();
    expect(() => checkStateSchema(JSON.parse(JSON.stringify(exportState(doubles, { journal: true }))))).not.toThrow();
    expect(stateSchema()).toMatchObject({ title: "infra-doubles state document, version 1", properties: { version: { const: 1 } } });
  });
});
