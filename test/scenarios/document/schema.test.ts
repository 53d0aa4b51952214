/**
 * The shipped JSON Schema of scenario documents is generated from the TypeScript types: the
 * committed file must be what the generator gives for today's types.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { ScenarioDocumentError } from "../../../src/scenarios/document/errors.js";
import { validateScenario } from "../../../src/scenarios/document/validate.js";
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

  describe("the expect step's matches", () => {
    const shipped = JSON.parse(readFileSync(SCHEMA_FILE as string, "utf8")) as { definitions: Record<string, { properties: Record<string, { type?: string; description?: string; minLength?: number }> }> };
    const Ajv = (createRequire(import.meta.url)("ajv") as { default: new (options: object) => { compile(schema: object): ((document: unknown) => boolean) & { errors?: { instancePath: string }[] | null } } }).default;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(shipped);
    const withExpect = (expect: object) => ({ timeline: [{ at: "5m", expect: { path: "clock.now", ...expect } }] });

    it("is described in the shipped schema (a string, an RE2 expression, examples)", () => {
      const matches = shipped.definitions.Expectation!.properties.matches!;
      expect(matches.type).toBe("string");
      expect(matches.description).toMatch(/regular expression \(RE2 syntax/);
      expect(matches.minLength).toBe(1);
      for (const name of ["path", "equals", "exists"]) expect(shipped.definitions.Expectation!.properties[name]!.description).toBeTruthy();
    });

    it("a document using it fits the shipped schema (plain ajv, as an editor or another language checks it)", () => {
      expect(validate(withExpect({ matches: "^2024-01-01T00:05" }))).toBe(true);
      expect(validateScenario(withExpect({ matches: "^2024-01-01T00:05" }))).toBeTruthy();
    });

    it("a matches that is not a non-empty string is refused with its pointer", () => {
      expect(validate(withExpect({ matches: 5 }))).toBe(false);
      expect(validate.errors?.map((e) => e.instancePath)).toContain("/timeline/0/expect/matches");
      for (const bad of [5, ""]) {
        let error: unknown;
        try {
          validateScenario(withExpect({ matches: bad }));
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(ScenarioDocumentError);
        expect((error as ScenarioDocumentError).problems[0]?.path).toBe("/timeline/0/expect/matches");
      }
    });
  });
});
