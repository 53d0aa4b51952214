/**
 * Scenario document errors name the file, the line and column and the JSON pointer of the FIELD
 * (issue 22 item 5), for documents read from a file (`loadScenario(path)`, `createDoubles({
 * scenario: "file.yaml" })`, `infra-doubles run`) or from text: an unknown property with the
 * nearest valid name, a bad value with what was expected, a duration a service refused, a YAML or
 * JSON syntax error.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createDoubles, loadScenario, ScenarioDocumentError } from "../../../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "infra-doubles-errors-"));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function failure(run: () => unknown): ScenarioDocumentError {
  try {
    run();
  } catch (error) {
    if (error instanceof ScenarioDocumentError) return error;
    throw error;
  }
  throw new Error("expected a ScenarioDocumentError");
}

const WORKSPACE_FIELDS = "allowed here: name, organization, autoApply, vcsRepo, engineVersion, outcome";

describe("scenario document errors: file, line, column, the field's pointer", () => {
  it("an unknown property: the misspelt key's place and the nearest valid name (not also a missing property)", () => {
    const path = file("unknown.yaml", "runs:\n  organizations: [{ name: acme }]\n  workspaces:\n    - name: prod\n      organisation: acme\n");
    const error = failure(() => loadScenario(path));
    expect(error.message).toBe(`infra-doubles: ${path}:5:7: /runs/workspaces/0/organisation: unknown property (did you mean "organization"?); ${WORKSPACE_FIELDS}`);
    expect({ kind: error.kind, file: error.file, line: error.line, column: error.column, path: error.path }).toEqual({ kind: "schema", file: path, line: 5, column: 7, path: "/runs/workspaces/0/organisation" });
    // The same through createDoubles({ scenario: path }).
    expect(failure(() => createDoubles({ scenario: path })).message).toBe(error.message);
  });

  it("a JSON document gets line and column too", () => {
    const path = file("unknown.json", '{\n  "runs": {\n    "workspaces": [\n      { "name": "prod", "organisation": "acme" }\n    ]\n  }\n}\n');
    expect(failure(() => createDoubles({ scenario: path })).message).toBe(
      `infra-doubles: ${path}:4:25: /runs/workspaces/0/organisation: unknown property (did you mean "organization"?); ${WORKSPACE_FIELDS}`,
    );
  });

  it("a bad value: at its field, with what is expected", () => {
    const path = file("value.yaml", "runs:\n  organizations:\n    - name: acme\n  outcome: { plan: maybe }\n");
    expect(failure(() => loadScenario(path)).message).toBe(`infra-doubles: ${path}:4:14: /runs/outcome/plan: must be one of "changes", "no-changes", "errors" (got "maybe")`);
  });

  it("a duration the service refuses: at the duration's field, saying what a duration looks like", () => {
    const acl = file("duration.yaml", "accessControl:\n  policies: [{ name: r, rules: 'acl = \"read\"' }]\n  tokens:\n    - name: ci\n      policies: [r]\n      expirationTtl: 10 minutes\n");
    expect(failure(() => createDoubles({ scenario: acl })).message).toBe(
      `infra-doubles: ${acl}:6:7: /accessControl/tokens/0/expirationTtl: expected a duration such as "10m", "1h30m" (got "10 minutes")`,
    );
    const secrets = file("ttl.yaml", "secrets:\n  tokens:\n    - { name: d, ttl: 1 hour }\n");
    expect(failure(() => createDoubles({ scenario: secrets })).message).toBe(`infra-doubles: ${secrets}:3:18: /secrets/tokens/0/ttl: expected a duration such as "10m", "1h30m" (got "1 hour")`);
    const plan = file("plan.yaml", "runs:\n  outcome: { durations: { plan: 2 minutes } }\n");
    expect(failure(() => createDoubles({ scenario: plan })).message).toBe(`infra-doubles: ${plan}:2:27: /runs/outcome/durations/plan: expected a duration such as "10m", "1h30m" (got "2 minutes")`);
  });

  it("a YAML or JSON syntax error: the file, line and column", () => {
    const yaml = file("syntax.yaml", "runs:\n  organizations: [\n");
    const error = failure(() => loadScenario(yaml));
    expect(error.message).toBe(`infra-doubles: ${yaml}:3:1: (document): valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`);
    expect(error.kind).toBe("syntax");
    const json = file("syntax.json", '{\n  "runs": { ,\n}\n');
    expect(failure(() => loadScenario(json)).message).toMatch(new RegExp(`^infra-doubles: ${json.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:2:13: \\(document\\): valid JSON: `));
  });

  it("a name the simulator does not know and an unreadable file", () => {
    const path = file("reference.yaml", "runs:\n  users:\n    - username: alice\n      permissions: { acme/nope: admin }\n");
    expect(failure(() => createDoubles({ scenario: path })).message).toBe(`infra-doubles: ${path}:4:22: /runs/users/0/permissions/acme~1nope: no workspace "acme/nope" (define it under runs.workspaces)`);
    const missing = join(dir, "missing.yaml");
    expect(failure(() => loadScenario(missing)).message).toMatch(new RegExp(`^infra-doubles: ${missing.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: \\(document\\): a readable file: ENOENT`));
  });

  it("text without a file gets the line and column; a timeline step refused at play time too", () => {
    expect(failure(() => createDoubles().load("runs:\n  workspaces:\n    - { name: prod, organisation: acme }\n")).message).toBe(
      `infra-doubles: scenario document: line 3, column 21: /runs/workspaces/0/organisation: unknown property (did you mean "organization"?); ${WORKSPACE_FIELDS}`,
    );
    const path = file("play.yaml", "timeline:\n  - nodeState: standby\n  - nextRun: { workspace: nowhere, plan: errors }\n");
    const loaded = createDoubles({ scenario: path }).scenario;
    expect(failure(() => loaded?.play()).message).toBe(`infra-doubles: ${path}:3:16: /timeline/1/nextRun/workspace: no workspace "nowhere" (define it under runs.workspaces)`);
  });

  it("loadScenario(path) gives the document, which createDoubles and doubles.load take; a path string works as the scenario option", () => {
    const path = file("good.yaml", "runs:\n  organizations: [{ name: acme }]\n  workspaces: [{ name: prod, organization: acme }]\n");
    const document = loadScenario(path);
    expect(document.runs?.workspaces?.[0]?.name).toBe("prod");
    const byObject = createDoubles({ seed: 4, scenario: document }).scenario?.names.runs.workspaces["acme/prod"];
    const byPath = createDoubles({ seed: 4, scenario: path }).scenario?.names.runs.workspaces["acme/prod"];
    expect(byPath).toMatch(/^ws-/);
    expect(byPath).toBe(byObject);
    expect(createDoubles({ seed: 4 }).load(path).names.runs.workspaces["acme/prod"]).toBe(byPath);
  });
});
