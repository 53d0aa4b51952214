/**
 * Scenario documents whose structure no loader should follow (issue 24 item 5): a YAML alias to an
 * enclosing node (a cycle), a document nested 100,000 levels deep (JSON or YAML), a YAML alias
 * bomb. Each is a {@link ScenarioDocumentError} with a JSON pointer (never a TypeError, RangeError
 * or ReferenceError, and never a crash of the process: a stack overflow inside V8's regular
 * expression compiler is fatal), so `infra-doubles run` exits 2 with the error and no stack trace,
 * and `POST /_sim/scenario` answers its documented 400. Nothing is loaded.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ScenarioDocumentError } from "../../src/scenarios/document/errors.js";
import { parseScenarioText } from "../../src/scenarios/document/parse.js";
import { MAX_DOCUMENT_DEPTH } from "../../src/scenarios/document/structure.js";
import { createDoubles, type Doubles } from "../../src/scenarios/doubles.js";
import { runToEnd } from "../cli/launch.js";

let doubles: Doubles | undefined;
afterEach(async () => {
  await doubles?.close();
  doubles = undefined;
});

const DEEP = 100_000;
const deepList = `${"[".repeat(DEEP)}${"]".repeat(DEEP)}`;
const bomb = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]", ..."bcdefghi".split("").map((name, i) => `${name}: &${name} [${Array(9).fill(`*${"abcdefghi"[i] ?? ""}`).join(", ")}]`)].join("\n");

/** Name, format, text, the pointer the error names (a prefix of it for deep documents). */
const CASES: [string, "json" | "yaml", string, string][] = [
  ["a cyclic YAML expect value (list)", "yaml", "timeline:\n  - expect: { path: clock, equals: &a [*a] }\n", "/timeline/0/expect/equals/0"],
  ["a cyclic YAML expect value (map)", "yaml", "timeline:\n  - expect:\n      path: faults\n      equals: &m { x: *m }\n", "/timeline/0/expect/equals/x"],
  [
    "cyclic YAML claims of an identity",
    "yaml",
    "accessControl:\n  authMethods:\n    - name: j\n      type: jwt\n      identities:\n        - bearerToken: x\n          claims: &c { a: [*c] }\n",
    "/accessControl/authMethods/0/identities/0/claims/a/0",
  ],
  ["100,000 levels of JSON in an expect value", "json", `{"timeline": [{"expect": {"path": "clock", "equals": ${deepList}}}]}`, "/timeline/0/expect/equals/0/0/0"],
  ["100,000 levels of JSON objects", "json", `{"timeline": [{"expect": {"path": "clock", "equals": ${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}}}]}`, "/timeline/0/expect/equals/a/a/a"],
  ["100,000 levels of YAML flow lists", "yaml", `timeline:\n  - expect: { path: clock, equals: ${deepList} }\n`, "/timeline/0/expect/equals/0/0/0"],
  ["100,000 levels of YAML flow maps", "yaml", `x: ${"{a: ".repeat(DEEP)}1${"}".repeat(DEEP)}\n`, "/x/a/a/a"],
  ["2,000 levels of YAML block lists", "yaml", `x:\n${Array.from({ length: 2000 }, (_, i) => `${" ".repeat(i + 1)}- `).join("\n")}1\n`, "/x/0/0/0"],
  ["a YAML alias bomb", "yaml", bomb, ""],
];

function file(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "infra-doubles-structure-")), name);
  writeFileSync(path, text);
  return path;
}

const run = runToEnd;

describe("cyclic, too deep and alias-bombed scenario documents", () => {
  it.each(CASES)("doubles.load: %s is a ScenarioDocumentError with a pointer, nothing loaded", (_name, format, text, path) => {
    doubles = createDoubles({ seed: 3, clock: "manual" });
    const d = doubles;
    const before = JSON.stringify(d.sim.snapshot());
    let caught: unknown;
    try {
      d.load(parseScenarioText(text, format) as never).play();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ScenarioDocumentError);
    const error = caught as ScenarioDocumentError;
    expect(error.path.startsWith(path)).toBe(true);
    expect(error.message.length).toBeLessThan(2_000);
    if (path !== "" && !/cyclic/.test(_name)) expect(error.expected).toContain(`${MAX_DOCUMENT_DEPTH} levels`);
    expect(JSON.stringify(d.sim.snapshot())).toBe(before);
    expect(d.faults.list()).toEqual([]);
  });

  it.each(CASES)("infra-doubles run: %s exits 2 with the document error, no stack trace", async (_name, format, text, path) => {
    const path_ = file(`world.${format}`, text);
    const result = await run(["run", path_]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${path_}`);
    if (path !== "") expect(result.stderr).toContain(path);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).not.toMatch(/TypeError|RangeError|ReferenceError/);
  });

  it.each(CASES)("POST /_sim/scenario?play=true: %s is the documented 400, nothing loaded", async (_name, format, text, path) => {
    doubles = createDoubles({ seed: 3 });
    const server = await doubles.listen();
    const before = await (await fetch(`${server.url}/_sim/faults`)).text();
    const response = await fetch(`${server.url}/_sim/scenario?play=true`, { method: "POST", headers: { "content-type": format === "json" ? "application/json" : "application/yaml" }, body: text });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-infra-doubles-bug")).toBeNull();
    const body = (await response.json()) as { error: { status: number; code: string; message: string } };
    expect(body.error.status).toBe(400);
    // Bracket nesting past 10,000 levels is refused by the control API's own bounded reader first
    // (400 malformed, "exceeded max depth"); everything else by the document's checks, at its pointer.
    if (body.error.code === "malformed") expect(body.error.message).toMatch(/exceeded max depth$/);
    else if (path !== "") expect(body.error.message).toContain(path);
    expect(await (await fetch(`${server.url}/_sim/faults`)).text()).toBe(before);
  });

  it("a document as deep as allowed still loads and plays, and an alias used twice (no cycle) is fine", () => {
    doubles = createDoubles({ seed: 3, clock: "manual" });
    const nested = `${"[".repeat(MAX_DOCUMENT_DEPTH - 4)}${"]".repeat(MAX_DOCUMENT_DEPTH - 4)}`;
    const yaml = `timeline:\n  - expect: { path: faults, equals: [] }\n  - note: &n shared\n    advance: 1s\n  - note: *n\n    expect: { path: clock, exists: true }\n  - expect: { path: faults, equals: ${nested}, }\n`;
    const transcript = doubles.load(parseScenarioText(yaml, "yaml") as never).play();
    expect(transcript.steps.map((s) => s.number)).toEqual([1, 2, 3, 4]);
    expect(transcript.failed).toBe(1);
  });

  it("a cyclic object handed to doubles.load is a ScenarioDocumentError at the cycle", () => {
    doubles = createDoubles({ seed: 3, clock: "manual" });
    const claims: Record<string, unknown> = { sub: "x" };
    claims.self = claims;
    const document = { accessControl: { authMethods: [{ name: "j", type: "jwt", identities: [{ bearerToken: "t", claims }] }] } };
    expect(() => doubles?.load(document as never)).toThrow(expect.objectContaining({ path: "/accessControl/authMethods/0/identities/0/claims/self" }) as Error);
  });
});
