/**
 * Differential test of the selector evaluator against a recorded table of the reference's answers
 * (issue 7, item 4): 600 seeded selectors (every operator alone on present and missing claims,
 * then `not`/`and`/`or` combinations) against six claims-based identities, as go-bexpr 0.1.2 (the
 * version the real service pins) answered them. Regenerate the table with
 * scripts/bexpr-reference/main.go (the command is in its header).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileSelector, type IdentitySchema } from "../../src/simulator/access-control/selector/index.js";
import { isDomainError } from "../../src/simulator/kernel/errors.js";

interface ReferenceTable {
  readonly reference: string;
  readonly identities: readonly { value: Record<string, string>; list: Record<string, string[]> }[];
  readonly rows: readonly { selector: string; error: string; results: readonly ("true" | "false" | "error")[] }[];
}

const table = JSON.parse(readFileSync(join(import.meta.dirname, "..", "fixtures", "bexpr-reference.json"), "utf8")) as ReferenceTable;
const claims: IdentitySchema = { fields: {}, claims: true };

function fakeAnswer(selector: string): { error: string; results: string[] } {
  try {
    const compiled = compileSelector(selector, claims);
    // The reference's evaluation errors are no match at login: the fake's matches() answers false.
    return { error: "", results: table.identities.map((identity) => String(compiled.matches(identity))) };
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return { error: error.detail ?? error.message, results: [] };
  }
}

describe("the selector evaluator against go-bexpr 0.1.2's recorded answers", () => {
  it("has a table covering every operator, missing claims and not", () => {
    expect(table.rows.length).toBeGreaterThanOrEqual(500);
    for (const operator of ["==", "!=", " in ", "not in", "contains", "not contains", "not matches", " matches ", "is empty", "is not empty", "not "]) {
      expect(table.rows.some((row) => row.selector.includes(operator) && row.error === ""), operator).toBe(true);
    }
    expect(table.rows.filter((row) => row.selector.includes("missing") && row.error === "").length).toBeGreaterThan(100);
  });

  it("answers every selector as the reference does (valid or not, and the match for each identity)", () => {
    const expected = table.rows.map((row) => ({ selector: row.selector, error: row.error, results: row.results.map((r) => (r === "error" ? "false" : r)) }));
    const actual = table.rows.map((row) => ({ selector: row.selector, ...fakeAnswer(row.selector) }));
    const disagreements = actual.filter((answer, i) => JSON.stringify(answer) !== JSON.stringify(expected[i]));
    expect(disagreements.slice(0, 10), `${disagreements.length} of ${table.rows.length} disagree`).toEqual(
      disagreements.slice(0, 10).map((answer) => expected[table.rows.findIndex((row) => row.selector === answer.selector)]),
    );
  });

  it("follows the reference's missing-claim rule for every operator: only ==, in/contains and is not empty are false", () => {
    // Regression (issue 7): `matches` on a missing claim answered false; the reference answers true.
    const none = table.identities[0];
    if (none === undefined) throw new Error("no identities");
    const answer = (selector: string): boolean => compileSelector(selector, claims).matches(none);
    expect(answer('value.missing matches "^w"')).toBe(true);
    expect(answer('value.missing not matches "^w"')).toBe(true);
    expect(answer('value.missing == ""')).toBe(false);
    expect(answer('value.missing != ""')).toBe(true);
    expect(answer('"" in value.missing')).toBe(false);
    expect(answer('value.missing contains ""')).toBe(false);
    expect(answer('value.missing not contains "x"')).toBe(true);
    expect(answer('"x" not in list.missing')).toBe(true);
    expect(answer("list.missing is empty")).toBe(true);
    expect(answer("list.missing is not empty")).toBe(false);
  });
});
