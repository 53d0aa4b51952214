import fc from "fast-check";
import { expect, it } from "vitest";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { describeEachTransport } from "../../support/transports.js";
import { startAcl } from "./support.js";

const paths = (ids: { token: string; rule: string }) => [
  ["PUT", "/acl/token"],
  ["PUT", `/acl/token/${ids.token}`],
  ["PUT", `/acl/token/${ids.token}/clone`],
  ["PUT", "/acl/binding-rule"],
  ["PUT", `/acl/binding-rule/${ids.rule}`],
  ["POST", "/acl/login"],
] as const;

const body = fc.oneof(
  fc.string(),
  fc.json(),
  fc.record(
    {
      AccessorID: fc.oneof(fc.uuid(), fc.string(), fc.integer()),
      SecretID: fc.oneof(fc.uuid(), fc.string()),
      Description: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
      Policies: fc.oneof(fc.array(fc.record({ ID: fc.string(), Name: fc.string() }, { requiredKeys: [] })), fc.string()),
      ServiceIdentities: fc.array(fc.record({ ServiceName: fc.string(), Datacenters: fc.array(fc.string()) }, { requiredKeys: [] })),
      NodeIdentities: fc.array(fc.record({ NodeName: fc.string(), Datacenter: fc.string() }, { requiredKeys: [] })),
      Local: fc.oneof(fc.boolean(), fc.string()),
      ExpirationTTL: fc.oneof(fc.string(), fc.integer(), fc.constantFrom("5m", "10s", "48h")),
      ExpirationTime: fc.oneof(fc.string(), fc.date({ noInvalidDate: true }).map((d) => d.toISOString())),
      AuthMethod: fc.constantFrom("k8s", "", "nope"),
      Selector: fc.string(),
      BindType: fc.constantFrom("service", "node", "role", "x", ""),
      BindName: fc.oneof(fc.string(), fc.constant("${serviceaccount.name}")),
      BearerToken: fc.constantFrom("jwt", "nope", ""),
      Meta: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.string()),
    },
    { requiredKeys: [] },
  ).map((o) => JSON.stringify(o)),
);

describeEachTransport("access-control: robustness", (t) => {
  it("answers any body on any write endpoint with the service's own status, and a refused write changes nothing", async () => {
    const h = await startAcl(t);
    h.acl.createAuthMethod({ name: "k8s", type: "kubernetes" });
    h.acl.registerBearerToken("k8s", "jwt", { name: "web", namespace: "default" });
    const token = h.acl.createToken();
    const rule = h.acl.createBindingRule({ authMethod: "k8s", bindType: "service", bindName: "x" });
    const endpoints = paths({ token: token.accessorId, rule: rule.id });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: endpoints.length - 1 }), body, async (which, raw) => {
        const [method, path] = endpoints[which] as (typeof endpoints)[number];
        const before = h.doubles.snapshot().services;
        const answer = await h.call(method, path, { rawBody: raw });
        expect(answer.headers.get("x-infra-doubles-bug")).toBeNull();
        expect([200, 400, 403, 500]).toContain(answer.status);
        if (answer.status !== 200) expect(h.doubles.snapshot().services).toEqual(before);
      }),
      { numRuns: 40 },
    );
  });

  it("keeps /v1/acl/* for access-control when every service shares the server's /v1", async () => {
    const { base } = await t.startWith(createDoubles());
    const answer = await fetch(`${base("accessControl")}/acl/nothing-here`);
    expect([answer.status, await answer.text()]).toEqual([404, "404 page not found\n"]);
    const wrong = await fetch(`${base("accessControl")}/acl/tokens`, { method: "POST" });
    expect([wrong.status, await wrong.text()]).toEqual([405, "method POST not allowed"]);
  });
});
