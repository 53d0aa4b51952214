/**
 * The secrets service's real header names beside the spec's (issue 7, item 1): `X-Vault-Token`,
 * `X-Vault-Namespace`, and `X-Vault-Request` accepted and ignored. Precedence follows the real
 * server: a token header wins over `Authorization: Bearer`; between the spec's name and the real
 * one (the same header under two names), the spec's name wins.
 */
import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import type { SecretsScenario } from "../../../src/scenarios/secrets/secrets-scenario.js";
import { itemsPlugin } from "../secrets/test-engine.js";

describeEachTransport("secrets: real client header names", (t) => {
  const start = async () => {
    const started = await t.start([itemsPlugin()], { seed: 1 });
    const base = started.base("secrets");
    const controls = started.doubles.controlsOf<SecretsScenario>("secrets");
    const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    return { ...started, base, controls, call };
  };

  it("takes the token from X-Vault-Token like X-Secrets-Token, and X-Vault-Request changes nothing", async () => {
    // Regression (issue 7): node-vault, hvac and Vault's Go client send X-Vault-Token; it answered 403.
    const { call } = await start();
    const vault = { "X-Vault-Token": "root-token", "X-Vault-Request": "true" };
    expect((await call("POST", "/items/items/a", vault, { value: "x" })).status).toBe(204);
    const read = await call("GET", "/items/items/a", vault);
    expect([read.status, (await read.json()).data]).toEqual([200, { value: "x" }]);
    expect((await call("GET", "/items/items/a", { "X-Vault-Token": "nope" })).status).toBe(403);
  });

  it("orders the token sources: X-Secrets-Token, then X-Vault-Token, then Authorization: Bearer", async () => {
    const { call, controls } = await start();
    controls.createPolicy("reader", { "items/items/*": ["read"] });
    const reader = controls.createToken({ policies: ["reader"] }).token;
    await call("POST", "/items/items/a", { "X-Secrets-Token": "root-token" }, { value: "x" });
    const write = (headers: Record<string, string>) => call("POST", "/items/items/b", headers, { value: "y" }).then((r) => r.status);
    // The spec's header wins over the real name; a token header wins over a bearer token.
    expect(await write({ "X-Secrets-Token": reader, "X-Vault-Token": "root-token" })).toBe(403);
    expect(await write({ "X-Secrets-Token": "root-token", "X-Vault-Token": reader })).toBe(204);
    expect(await write({ "X-Vault-Token": reader, Authorization: "Bearer root-token" })).toBe(403);
    expect(await write({ "X-Vault-Token": "root-token", Authorization: `Bearer ${reader}` })).toBe(204);
    // An empty header counts as absent (Go's Header.Get(...) != "").
    expect(await write({ "X-Secrets-Token": "", "X-Vault-Token": "root-token" })).toBe(204);
    expect(await write({ "X-Vault-Token": "", Authorization: "Bearer root-token" })).toBe(204);
  });

  it("takes the namespace from X-Vault-Namespace like X-Secrets-Namespace, the spec's name first", async () => {
    const { call, controls } = await start();
    controls.createNamespace("ns1");
    controls.createNamespace("ns2");
    controls.mount("ns1/items", "items");
    const root = { "X-Vault-Token": "root-token" };
    expect((await call("POST", "/ns1/items/items/a", root, { value: "in ns1" })).status).toBe(204);
    const viaVault = await call("GET", "/items/items/a", { ...root, "X-Vault-Namespace": "ns1" });
    expect([viaVault.status, (await viaVault.json()).data]).toEqual([200, { value: "in ns1" }]);
    const both = await call("GET", "/items/items/a", { ...root, "X-Secrets-Namespace": "ns1", "X-Vault-Namespace": "ns2" });
    expect(both.status).toBe(200);
    const specWins = await call("GET", "/items/items/a", { ...root, "X-Secrets-Namespace": "ns2", "X-Vault-Namespace": "ns1" });
    expect(specWins.status).toBe(404);
    const ghost = await call("GET", "/items/items/a", { ...root, "X-Vault-Namespace": "ghost" });
    expect(ghost.status).toBe(404);
    // Health is root-namespace only, whichever name carries the namespace.
    expect((await call("GET", "/sys/health", { "X-Vault-Namespace": "ns1" })).status).toBe(404);
  });
});
