/**
 * The testing kit's access-control body arbitraries (binding rules, login, token links) against the
 * fake, through every transport: every valid body is accepted, every invalid one (including those
 * refused because of stored data) gets exactly the labelled status and text and changes nothing.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../src/index.js";
import { readServiceError } from "../../src/testing/errors.js";
import {
  bindingRuleBody,
  bindingRuleUpdateBody,
  invalidBindingRuleBody,
  invalidBindingRuleUpdateBody,
  invalidLoginBody,
  invalidTokenLinkBody,
  loginBody,
} from "../../src/testing/access-control-bodies.js";
import { describeEachTransport } from "../support/transports.js";

const NUM_RUNS = 10;

function world(doubles: Doubles, api: string) {
  const acl = doubles.accessControl;
  acl.createPolicy({ name: "ops", rules: 'node_prefix "" { policy = "read" }' });
  const k8s = acl.createAuthMethod({ name: "k8s", type: "kubernetes", maxTokenTtl: "1h" });
  const oidc = acl.createAuthMethod({ name: "oidc", type: "oidc", claimMappings: { sub: "user" }, listClaimMappings: { groups: "groups" } });
  acl.registerBearerToken("k8s", "jwt-web", { name: "web", namespace: "default", uid: "u-1" });
  acl.createBindingRule({ authMethod: "k8s", bindType: "service", bindName: "${serviceaccount.name}" });
  const root = acl.bootstrapToken.secretId;
  const send = (method: string, path: string, body: unknown, token: string | null = root) =>
    fetch(`${api}${path}`, { method, headers: token === null ? {} : { "x-acl-token": token }, body: JSON.stringify(body) });
  return { acl, k8s, oidc, send };
}

describeEachTransport("testing kit: access-control body arbitraries", (t) => {
  it("binding-rule create and update bodies are accepted for fields-based and claims-based methods", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 11 }));
    const w = world(doubles, base("accessControl"));
    for (const method of [w.k8s, w.oidc]) {
      await fc.assert(
        fc.asyncProperty(bindingRuleBody(method), async (body) => {
          const created = await w.send("PUT", "/acl/binding-rule", body);
          expect(created.status, await created.clone().text()).toBe(200);
          const rule = (await created.json()) as { ID: string; AuthMethod: string };
          expect(rule.AuthMethod).toBe(method.name);
          const [update] = fc.sample(bindingRuleUpdateBody(rule, method), { numRuns: 1, seed: rule.ID.length });
          const updated = await w.send("PUT", `/acl/binding-rule/${rule.ID}`, update);
          expect(updated.status, await updated.clone().text()).toBe(200);
        }),
        { numRuns: NUM_RUNS },
      );
    }
  });

  it("invalid binding-rule bodies get their labelled answer and store no rule", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 12 }));
    const w = world(doubles, base("accessControl"));
    for (const method of [w.k8s, w.oidc]) {
      await fc.assert(
        fc.asyncProperty(invalidBindingRuleBody(method, { authMethods: ["k8s", "oidc"] }), async ({ body, expected }) => {
          const before = w.acl.bindingRules().length;
          expect(await readServiceError("accessControl", await w.send("PUT", "/acl/binding-rule", body))).toEqual(expected);
          expect(w.acl.bindingRules().length).toBe(before);
        }),
        { numRuns: NUM_RUNS * 3 },
      );
    }
    const [stored] = w.acl.bindingRules();
    const rule = { ID: stored?.id ?? "", AuthMethod: stored?.authMethod ?? "" };
    await fc.assert(
      fc.asyncProperty(invalidBindingRuleUpdateBody(rule, w.k8s), async ({ body, expected }) => {
        const before = JSON.stringify(w.acl.bindingRules());
        expect(await readServiceError("accessControl", await w.send("PUT", `/acl/binding-rule/${rule.ID}`, body))).toEqual(expected);
        expect(JSON.stringify(w.acl.bindingRules())).toBe(before);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("login bodies log in; invalid login bodies (decoding, unknown method, rejected bearer token) get their labelled answer and make no token", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 13 }));
    const w = world(doubles, base("accessControl"));
    await fc.assert(
      fc.asyncProperty(loginBody("k8s", "jwt-web"), async (body) => {
        const response = await w.send("POST", "/acl/login", body, null);
        expect(response.status, await response.clone().text()).toBe(200);
      }),
      { numRuns: 4 },
    );
    await fc.assert(
      fc.asyncProperty(invalidLoginBody(w.k8s, "jwt-web", { authMethods: ["oidc"] }), async ({ body, expected }) => {
        const before = w.acl.tokens().length;
        expect(await readServiceError("accessControl", await w.send("POST", "/acl/login", body, null))).toEqual(expected);
        expect(w.acl.tokens().length).toBe(before);
      }),
      { numRuns: NUM_RUNS * 2 },
    );
  });

  it("token bodies linking a policy or role that does not exist get the 500 naming it and make no token", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 14 }));
    const w = world(doubles, base("accessControl"));
    await fc.assert(
      fc.asyncProperty(invalidTokenLinkBody({ policies: ["ops"] }), async ({ body, expected }) => {
        const before = w.acl.tokens().length;
        expect(await readServiceError("accessControl", await w.send("PUT", "/acl/token", body))).toEqual(expected);
        expect(w.acl.tokens().length).toBe(before);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
