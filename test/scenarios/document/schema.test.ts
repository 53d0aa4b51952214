/**
 * The shipped JSON Schema of scenario documents is generated from the TypeScript types: the
 * committed file must be what the generator gives for today's types.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error the generator script is plain JavaScript without declarations
import { generateScenarioSchema, SCHEMA_FILE } from "../../../scripts/generate-scenario-schema.mjs";

describe("scenario document schema", () => {
  it("is in step with src/scenarios/document/types.ts (run npm run schema after changing the types)", () => {
    const generated = (generateScenarioSchema as () => string)();
    expect(readFileSync(SCHEMA_FILE as string, "utf8")).toBe(generated);
  }, 180_000);

  it("is exported by the package as infra-doubles/scenario.schema.json", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { exports: Record<string, unknown> };
    expect(pkg.exports["./scenario.schema.json"]).toBe("./dist/scenario.schema.json");
  });
});
