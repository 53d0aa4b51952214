/**
 * vault-api 1.1.1, configured as its README says (`vault({ method, path, ... })` with `address`
 * and `token`), WITHOUT an explicit engine: it asks `sys/internal/ui/mounts` which engine owns a
 * path's mount (type plus the KV `options.version`) and picks its request shape by that name.
 * Issue 23: every call without an engine failed there with 404.
 */
import { createRequire } from "node:module";
import { expect, it } from "vitest";
import { createDoubles } from "../../src/index.js";
import { installSshDefaults } from "../../src/scenarios/secrets/ssh/index.js";
import { describeEachTransport, type TransportHarness } from "../support/transports.js";

const require = createRequire(import.meta.url);

interface VaultApiResponse {
  readonly statusCode: number;
  readonly data?: Record<string, unknown> | null;
  readonly lease_id?: string;
  readonly lease_duration?: number;
}
interface VaultApiConfig {
  readonly address?: string;
  readonly token?: string;
  readonly engine?: string;
  readonly data?: unknown;
}
interface VaultApi {
  (config: VaultApiConfig & { method: string; path: string }): Promise<VaultApiResponse>;
  create(defaults: VaultApiConfig): VaultApi;
  read(path: string, config?: VaultApiConfig): Promise<VaultApiResponse>;
  write(path: string, data: unknown, config?: VaultApiConfig): Promise<VaultApiResponse>;
  list(path: string, config?: VaultApiConfig): Promise<VaultApiResponse>;
  delete(path: string, config?: VaultApiConfig): Promise<VaultApiResponse>;
}
const { vault } = require("vault-api") as { vault: VaultApi };
// vault-api's own hooks: the engine registry (its wiki's way to teach it an engine by its mount
// type) and the mount cache it fills from sys/internal/ui/mounts.
const engines = require("vault-api/dist/core/engines") as { register(name: string, engine: unknown): void; getEngine(name: string): unknown };
// vault-api's own axios (the one it calls sys/internal/ui/mounts with).
const axios = createRequire(require.resolve("vault-api"))("axios") as unknown;
const mounts = require("vault-api/dist/core/mounts") as { getEngineName(config: Record<string, unknown>): Promise<string | undefined>; invalidateMountsCache(): void };

async function start(t: TransportHarness) {
  mounts.invalidateMountsCache();
  const started = await t.startWith(createDoubles({ seed: 5 }));
  const { secrets } = started.doubles;
  installSshDefaults(secrets, { keyType: "ed25519" });
  const address = started.base("secrets").replace(/\/v1$/, "");
  const client = vault.create({ address, token: secrets.rootToken });
  return { ...started, secrets, address, client };
}

describeEachTransport("vault-api without an explicit engine", (t) => {
  it("finds each path's engine from sys/internal/ui/mounts (the type of the mount owning it)", async () => {
    const { address, secrets } = await start(t);
    const config = { address, token: secrets.rootToken, apiVersion: "v1", axios, headers: {}, isVaultRequest: true };
    expect(await mounts.getEngineName({ ...config, path: "ssh/roles/otp-role" })).toBe("ssh");
    expect(await mounts.getEngineName({ ...config, path: "cloud/roles/x" })).toBe("cloud");
    expect(await mounts.getEngineName({ ...config, path: "nothing/here" })).toBeUndefined();
  });

  it("reads, writes, lists and deletes under the ssh mount once the engine name is registered", async () => {
    const { client } = await start(t);
    // Without an explicit engine vault-api asks the fake which engine owns `ssh/`; before issue 23
    // this failed with 404 on sys/internal/ui/mounts. vault-api ships only KV request shapes, so
    // it is taught the name the fake reports (the KV shapes fit the SSH engine's plain paths).
    engines.register("ssh", engines.getEngine("kv"));
    await client.write("ssh/roles/web", { key_type: "otp", default_user: "web", cidr_list: "10.2.0.0/16" });
    const role = await client.read("ssh/roles/web");
    expect(role).toMatchObject({ statusCode: 200, data: { key_type: "otp", default_user: "web" } });
    expect((await client.list("ssh/roles")).data).toMatchObject({ keys: expect.arrayContaining(["otp-role", "web"]) });
    const creds = await client.write("ssh/creds/web", { ip: "10.2.3.4" });
    expect(creds).toMatchObject({ statusCode: 200, data: { key_type: "otp", ip: "10.2.3.4" }, lease_duration: 2_764_800 });
    expect((await client.delete("ssh/roles/web")).statusCode).toBe(204);
  });

  it("sees only the mounts its token may see, as the real service filters them", async () => {
    const { address, secrets } = await start(t);
    secrets.createPolicy("cloud-only", { "cloud/creds/*": ["read"] });
    const token = secrets.createToken({ policies: ["cloud-only"] }).token;
    const config = { address, token, apiVersion: "v1", axios, headers: {}, isVaultRequest: true };
    expect(await mounts.getEngineName({ ...config, path: "cloud/creds/deploy" })).toBe("cloud");
    expect(await mounts.getEngineName({ ...config, path: "ssh/roles/otp-role" })).toBeUndefined();
  });
});
