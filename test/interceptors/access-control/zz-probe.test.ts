import { expect, it, vi } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { startAcl } from "./support.js";

describeEachTransport("probe", (t) => {
  it("probes", async () => {
    const h = await startAcl(t);
    h.acl.createAuthMethod({ name: "k8s", type: "kubernetes" });
    const out: Record<string, unknown> = {};
    const rule = (Selector: string) => h.call("PUT", "/acl/binding-rule", { body: { AuthMethod: "k8s", Selector, BindType: "service", BindName: "x" } });
    for (const sel of ["  ", "\t", "serviceaccount.namespace != kube-system", 'serviceaccount.namespace != "kube-system"', "serviceaccount.name == web_1", "serviceaccount.name == 1web"]) {
      const a = await rule(sel);
      out[`sel ${JSON.stringify(sel)}`] = [a.status, a.text.slice(0, 200)];
    }
    const tok = await h.call("PUT", "/acl/token", { body: { ExpirationTTL: "1m" } });
    h.doubles.advance("1m");
    out.atBoundary = (await h.call("GET", "/acl/token/self", { token: tok.json.SecretID })).status;
    for (const p of ["/acl/token/", "/acl/binding-rule/", "/acl/token/self/", "/acl/tokens/"]) {
      const a = await h.call("GET", p);
      out[`GET ${p}`] = [a.status, a.text];
    }
    const m = await h.call("POST", "/acl/tokens");
    out.allow = m.headers.get("allow");
    out.bigIndex = (await h.call("GET", "/acl/tokens?index=18446744073709551615&wait=1s")).status;
    out.unknown = (await h.call("PUT", "/acl/token", { body: { Bogus: 1 } })).status;
    out.ossHeader = (await h.call("GET", "/acl/tokens", { headers: { "X-Acl-Namespace": "x" } })).status;
    out.ossAuthNs = (await h.call("GET", "/acl/tokens?authmethod-ns=x")).status;
    out.selfNs = (await h.call("GET", "/acl/token/self?ns=x")).status;
    out.cloneEmpty = (await h.call("PUT", `/acl/token/${tok.json.AccessorID}/clone`)).status;
    out.logoutNone = await h.call("POST", "/acl/logout", { token: null }).then((a) => [a.status, a.text]);
    out.expandedFalse = (await h.call("GET", `/acl/token/${h.acl.bootstrapToken.accessorId}?expanded=false`)).json?.ExpandedPolicies !== undefined;
    const ac = new AbortController();
    const p = h.call("GET", "/acl/tokens?index=999&wait=5m", { signal: ac.signal }).catch((e: Error) => e.name);
    await vi.waitFor(() => expect(h.doubles.sim.pendingWaiters).toBe(1));
    ac.abort();
    out.abort = await p;
    await new Promise((r) => setTimeout(r, 50));
    out.waitersAfterAbort = h.doubles.sim.pendingWaiters;
    console.log(t.name, JSON.stringify(out, null, 1));
  });
});
