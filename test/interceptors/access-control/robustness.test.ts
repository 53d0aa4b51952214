import fc from "fast-check";
import { expect, it } from "vitest";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { describeEachTransport } from "../../support/transports.js";
import { startAcl } from "./support.js";

const paths = (ids: { token: string; rule: string }) => [
  ["PUT", "/acl/token", "token"],
  ["PUT", `/acl/token/${ids.token}`, "token"],
  ["PUT", `/acl/token/${ids.token}/clone`, "token"],
  ["PUT", "/acl/binding-rule", "rule"],
  ["PUT", `/acl/binding-rule/${ids.rule}`, "rule"],
  ["POST", "/acl/login", "login"],
] as const;

const tokenFields = {
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
  CreateIndex: fc.oneof(fc.integer(), fc.string()),
  Hash: fc.oneof(fc.string(), fc.integer()),
};
const ruleFields = {
  ID: fc.oneof(fc.uuid(), fc.string()),
  Description: fc.oneof(fc.string(), fc.integer()),
  AuthMethod: fc.constantFrom("k8s", "", "nope"),
  Selector: fc.oneof(fc.string(), fc.constantFrom("serviceaccount.name == web", "  ", "serviceaccount.namespace != kube-system")),
  BindType: fc.constantFrom("service", "node", "role", "x", ""),
  BindName: fc.oneof(fc.string(), fc.constant("${serviceaccount.name}")),
};
const loginFields = {
  AuthMethod: fc.constantFrom("k8s", "", "nope"),
  BearerToken: fc.constantFrom("jwt", "nope", ""),
  Meta: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.string()),
};
/** Mostly the endpoint's own fields (so the rules are exercised), sometimes an unknown one, sometimes not JSON at all. */
const bodyFor = (kind: "token" | "rule" | "login") => {
  const fields = kind === "token" ? tokenFields : kind === "rule" ? ruleFields : loginFields;
  const record = fc.record(fields as Record<string, fc.Arbitrary<unknown>>, { requiredKeys: [] });
  return fc.oneof(
    { weight: 6, arbitrary: record.map((o) => JSON.stringify(o)) },
    { weight: 1, arbitrary: fc.tuple(record, fc.string({ minLength: 1 })).map(([o, key]) => JSON.stringify({ ...o, [key]: 1 })) },
    { weight: 1, arbitrary: fc.oneof(fc.string(), fc.json()) },
  );
};

describeEachTransport("access-control: robustness", (t) => {
  it("answers any body on any write endpoint with the service's own status, and a refused write changes nothing", async () => {
    const h = await startAcl(t);
    h.acl.createAuthMethod({ name: "k8s", type: "kubernetes" });
    h.acl.registerBearerToken("k8s", "jwt", { name: "web", namespace: "default" });
    const token = h.acl.createToken();
    const rule = h.acl.createBindingRule({ authMethod: "k8s", bindType: "service", bindName: "x" });
    const requests = fc
      .constantFrom(...paths({ token: token.accessorId, rule: rule.id }))
      .chain((endpoint) => fc.tuple(fc.constant(endpoint), bodyFor(endpoint[2])));
    await fc.assert(
      fc.asyncProperty(requests, async ([endpoint, raw]) => {
        const [method, path] = endpoint;
        const before = h.doubles.snapshot().services;
        const answer = await h.call(method, path, { rawBody: raw });
        expect(answer.headers.get("x-infra-doubles-bug")).toBeNull();
        expect([200, 400, 403, 500]).toContain(answer.status);
        if (answer.status !== 200) expect(h.doubles.snapshot().services).toEqual(before);
      }),
      { numRuns: 60 },
    );
  });

  it("answers byte-identical bodies and index headers for the same seed and the same calls, on every endpoint", async () => {
    const transcripts: string[] = [];
    for (let run = 0; run < 2; run++) {
      const h = await startAcl(t, { seed: 42 });
      h.acl.createPolicy({ name: "acl-read", rules: 'acl = "read"' });
      h.acl.createAuthMethod({ name: "k8s", type: "kubernetes", maxTokenTtl: "30m" });
      h.acl.registerBearerToken("k8s", "jwt", { name: "web", namespace: "default" });
      const lines: string[] = [];
      const record = async (method: string, path: string, options: Parameters<typeof h.call>[2] = {}) => {
        const answer = await h.call(method, path, options);
        lines.push(`${method} ${path} ${answer.status} ${answer.headers.get("x-acl-index")} ${answer.text}`);
        return answer;
      };
      const token = (await record("PUT", "/acl/token", { body: { Policies: [{ Name: "acl-read" }], ExpirationTTL: "1h", ServiceIdentities: [{ ServiceName: "web" }] } })).json;
      const rule = (await record("PUT", "/acl/binding-rule", { body: { AuthMethod: "k8s", BindType: "service", BindName: "${serviceaccount.name}" } })).json;
      await record("POST", "/acl/login", { token: null, body: { AuthMethod: "k8s", BearerToken: "jwt", Meta: { a: "b" } } });
      await record("PUT", `/acl/token/${token.AccessorID}/clone`, { body: { Description: "copy" } });
      h.doubles.advance("10m");
      await record("PUT", `/acl/token/${token.AccessorID}`, { body: { Description: "v2", Policies: [{ Name: "acl-read" }] } });
      await record("GET", `/acl/token/${token.AccessorID}?expanded`);
      await record("GET", "/acl/tokens");
      await record("GET", "/acl/binding-rules");
      await record("GET", `/acl/binding-rule/${rule.ID}`);
      await record("PUT", "/acl/token", { rawBody: '{"Bogus":1}' });
      await record("DELETE", `/acl/binding-rule/${rule.ID}`);
      transcripts.push(lines.join("\n"));
      await h.doubles.close();
    }
    expect(transcripts[1]).toBe(transcripts[0]);
  });

  it("keeps /v1/acl/* for access-control when every service shares the server's /v1", async () => {
    const { base } = await t.startWith(createDoubles());
    const answer = await fetch(`${base("accessControl")}/acl/nothing-here`);
    expect([answer.status, await answer.text()]).toEqual([404, "404 page not found\n"]);
    const wrong = await fetch(`${base("accessControl")}/acl/tokens`, { method: "POST" });
    expect([wrong.status, await wrong.text()]).toEqual([405, "method POST not allowed"]);
  });
});
