/**
 * Scenario documents: fixtures of the three services loaded by `createDoubles({ scenario })` and
 * `doubles.load()`, names resolved, ids seeded, proven through HTTP on every transport; refusals
 * name the JSON pointer and what was expected, and change nothing.
 */
import { describe, expect, it } from "vitest";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { ScenarioDocumentError } from "../../../src/scenarios/document/errors.js";
import type { ScenarioDocument } from "../../../src/scenarios/document/types.js";
import type { RunsState } from "../../../src/simulator/runs/state.js";
import { describeEachTransport } from "../../support/transports.js";

const WORLD = `
description: a world of three services
runs:
  organizations: [{ name: acme }]
  workspaces:
    - { name: prod, organization: acme, autoApply: true }
    - { name: staging, organization: acme }
  users:
    - { username: alice, permissions: { prod: admin, acme/staging: read } }
  teams:
    - { name: ops, organization: acme, members: [alice], permissions: { staging: write } }
  tokens:
    - { name: alice-token, user: alice }
    - { name: ops-token, team: ops }
accessControl:
  policies:
    - { name: acl-read, rules: 'acl = "read"' }
  roles:
    - { name: readers, policies: [acl-read] }
  authMethods:
    - name: k8s
      type: kubernetes
      maxTokenTtl: 1h
      identities:
        - { bearerToken: jwt-web, serviceAccount: { name: web, namespace: default } }
  bindingRules:
    - { authMethod: k8s, bindType: service, bindName: "\${serviceaccount.name}" }
  tokens:
    - { name: reader, description: ci, roles: [readers], expirationTtl: 10m }
secrets:
  policies:
    - name: ssh-user
      rules: { "ssh/creds/*": [update] }
  tokens:
    - { name: deployer, policies: [ssh-user], ttl: 1h }
  ssh:
    - ca: { keyType: ed25519 }
      otpRoles: { otp-role: { cidrList: 10.0.0.0/8 } }
  nodeState: standby
`;

describeEachTransport("scenario documents: fixtures of every service", (t) => {
  it("loads a YAML document whose names resolve and whose tokens work through HTTP", async () => {
    const doubles = createDoubles({ seed: 3, scenario: WORLD });
    const { base } = await t.startWith(doubles);
    const names = doubles.scenario?.names;
    const prod = names?.runs.workspaces["acme/prod"] ?? "";
    expect(prod).toMatch(/^ws-/);
    const list = (token: string | undefined, ws: string): Promise<Response> =>
      fetch(`${base("runs")}/workspaces/${ws}/runs`, { headers: { authorization: `Bearer ${token ?? ""}` } });
    expect((await list(names?.runs.tokens["alice-token"], prod)).status).toBe(200);
    // The team token acts with the team's levels: write on staging, nothing on prod.
    expect((await list(names?.runs.tokens["ops-token"], names?.runs.workspaces["acme/staging"] ?? "")).status).toBe(200);
    expect((await list(names?.runs.tokens["ops-token"], prod)).status).toBe(404);
    expect(doubles.runs.workspace(prod).autoApply).toBe(true);

    const acl = await fetch(`${base("accessControl")}/acl/token/self`, { headers: { "x-consul-token": names?.accessControl.tokens.reader?.secretId ?? "" } });
    expect(acl.status).toBe(200);
    const self = (await acl.json()) as { Description: string; Roles: { Name: string }[] };
    expect(self.Description).toBe("ci");
    expect(self.Roles.map((r) => r.Name)).toEqual(["readers"]);
    const login = await fetch(`${base("accessControl")}/acl/login`, { method: "POST", body: JSON.stringify({ AuthMethod: "k8s", BearerToken: "jwt-web" }) });
    expect(login.status).toBe(200);

    const health = await fetch(`${base("secrets")}/sys/health`);
    expect(health.status).toBe(429); // standby
    const otp = await fetch(`${base("secrets")}/ssh/creds/otp-role`, {
      method: "POST",
      headers: { "x-vault-token": names?.secrets.tokens.deployer ?? "" },
      body: JSON.stringify({ ip: "10.0.0.5" }),
    });
    expect(otp.status).toBe(200);
  });
});

describe("scenario documents: names, seeds and refusals", () => {
  it("gives the same ids and tokens for the same document and seed, and others for another seed", () => {
    const a = createDoubles({ seed: 3, scenario: WORLD }).scenario?.names;
    const b = createDoubles({ seed: 3, scenario: WORLD }).scenario?.names;
    const c = createDoubles({ seed: 4, scenario: WORLD }).scenario?.names;
    expect(a).toEqual(b);
    expect(c?.runs.workspaces["acme/prod"]).not.toBe(a?.runs.workspaces["acme/prod"]);
  });

  it("sets the organization's cost-estimation-enabled setting from the document, and refuses a value that is not a boolean", () => {
    const doubles = createDoubles({ seed: 2 });
    doubles.load({ runs: { organizations: [{ name: "acme", costEstimationEnabled: true }, { name: "beta" }], workspaces: [{ name: "prod", organization: "acme" }] } });
    const organizations = doubles.sim.read<RunsState, RunsState["organizations"]>("runs", (ctx) => ctx.state.organizations);
    expect(organizations.acme?.costEstimationEnabled).toBe(true);
    expect(organizations.beta?.costEstimationEnabled).toBe(false);
    let refused: unknown;
    try {
      createDoubles().load({ runs: { organizations: [{ name: "acme", costEstimationEnabled: "yes" }] } } as unknown as ScenarioDocument);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ScenarioDocumentError);
    expect((refused as ScenarioDocumentError).message).toContain("/runs/organizations/0/costEstimationEnabled");
  });

  it("loads the same document as JSON text and as an object", () => {
    const object: ScenarioDocument = { runs: { organizations: [{ name: "acme" }], workspaces: [{ name: "prod", organization: "acme" }] } };
    const fromText = createDoubles({ seed: 9 }).load(JSON.stringify(object)).names;
    const fromObject = createDoubles({ seed: 9 }).load(object).names;
    expect(fromText).toEqual(fromObject);
  });

  it("refuses a document that does not fit the schema with its JSON pointer and what was expected", () => {
    const doubles = createDoubles();
    const attempt = (doc: unknown): ScenarioDocumentError => {
      try {
        doubles.load(doc as ScenarioDocument);
      } catch (error) {
        expect(error).toBeInstanceOf(ScenarioDocumentError);
        return error as ScenarioDocumentError;
      }
      throw new Error("loaded");
    };
    const missing = attempt({ runs: { workspaces: [{ name: "prod" }] } });
    expect(missing.kind).toBe("schema");
    expect(missing.path).toBe("/runs/workspaces/0");
    expect(missing.expected).toBe('missing property "organization"');
    const typo = attempt({ runs: { organisations: [] } });
    expect(typo.path).toBe("/runs/organisations");
    expect(typo.expected).toContain('did you mean "organizations"?');
    const badEnum = attempt({ runs: { outcome: { plan: "maybe" } } });
    expect(badEnum.path).toBe("/runs/outcome/plan");
    expect(badEnum.expected).toBe('must be one of "changes", "no-changes", "errors" (got "maybe")');
    const badType = attempt({ runs: { coolOff: true } });
    expect(badType.expected).toBe("must be number or string (got true)");
    expect(badType.message).toBe("infra-doubles: scenario document: /runs/coolOff: must be number or string (got true)");
    const twoActions = attempt({ timeline: [{ at: "1m", advance: "1m", nodeState: "sealed" }] });
    expect(twoActions.path).toBe("/timeline/0");
    const backwards = attempt({ timeline: [{ at: "5m", advance: "1m" }, { at: "1m", advance: "1m" }] });
    expect(backwards.path).toBe("/timeline/1/at");
  });

  it("refuses a document naming a workspace it does not define, and keeps nothing of it", () => {
    const doubles = createDoubles();
    const before = doubles.snapshot();
    let error: unknown;
    try {
      doubles.load({
        runs: { organizations: [{ name: "acme" }], users: [{ username: "alice", permissions: { prod: "admin" } }] },
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ScenarioDocumentError);
    expect((error as ScenarioDocumentError).kind).toBe("reference");
    expect((error as ScenarioDocumentError).path).toBe("/runs/users/0/permissions/prod");
    expect(JSON.stringify(doubles.snapshot().services)).toBe(JSON.stringify(before.services));
    // acme was made before the failure and is gone: loading it again works.
    expect(() => doubles.load({ runs: { organizations: [{ name: "acme" }] } })).not.toThrow();
  });

  it("turns a fixture the service refuses into the pointer of that fixture", () => {
    const doubles = createDoubles();
    let error: unknown;
    try {
      doubles.load({ accessControl: { tokens: [{ name: "t", policies: ["no-such-policy"] }] } });
    } catch (caught) {
      error = caught;
    }
    expect((error as ScenarioDocumentError).kind).toBe("fixture");
    expect((error as ScenarioDocumentError).path).toBe("/accessControl/tokens/0");
  });

  it("reports a YAML syntax error with its line", () => {
    expect(() => createDoubles().load("runs:\n  organizations: [\n")).toThrow(/line 3, column 1: \(document\): valid YAML: /);
  });

  it("goes back to the state right after the scenario on reset()", () => {
    const doubles = createDoubles({ scenario: { runs: { organizations: [{ name: "acme" }] } } });
    doubles.runs.addOrganization("later");
    doubles.reset();
    expect(() => doubles.runs.addOrganization("later")).not.toThrow();
    expect(() => doubles.runs.addOrganization("acme")).toThrow(/acme/);
  });

  it("refuses a scenario option of the wrong type", () => {
    expect(() => createDoubles({ scenario: 42 as never })).toThrow(/option "scenario" must be a scenario document/);
  });
});
