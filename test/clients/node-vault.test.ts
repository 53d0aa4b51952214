/**
 * node-vault 0.12, configured exactly as its README says (`require("node-vault")({ endpoint,
 * token })`), against the secrets service through nock and through the local server (issue 7,
 * item 7). `list()` (the `LIST` method through axios) is covered with the LIST fix, not here.
 */
import { createRequire } from "node:module";
import { expect, it } from "vitest";
import { createDoubles } from "../../src/index.js";
import { installCloudDefaults } from "../../src/scenarios/secrets/cloud/cloud-scenario.js";
import { installSshDefaults } from "../../src/scenarios/secrets/ssh/index.js";
import { describeEachTransport, type TransportHarness } from "../support/transports.js";

const require = createRequire(import.meta.url);

interface VaultClient {
  health(): Promise<Record<string, unknown>>;
  read(path: string): Promise<{ data: Record<string, unknown> }>;
  write(path: string, data: unknown): Promise<{ data?: Record<string, unknown>; lease_id?: string } | undefined>;
  delete(path: string): Promise<unknown>;
  request(options: { path: string; method: string; json?: unknown }): Promise<{ data?: Record<string, unknown>; lease_id?: string } | undefined>;
  mounts(): Promise<{ data: Record<string, { type: string }> }>;
  mount(options: { mount_point: string; type: string }): Promise<unknown>;
  unmount(options: { mount_point: string }): Promise<unknown>;
  revoke(options: { lease_id: string }): Promise<unknown>;
  renew(options: { lease_id: string; increment?: number }): Promise<{ lease_id: string; lease_duration: number }>;
  initialized(): Promise<{ initialized: boolean }>;
  init(options: { secret_shares: number; secret_threshold: number }): Promise<{ keys: string[]; root_token: string }>;
  status(): Promise<{ sealed: boolean; t: number; n: number; progress: number }>;
}
const nodeVault = require("node-vault") as (options: { endpoint: string; token?: string }) => VaultClient;

async function start(t: TransportHarness) {
  const started = await t.startWith(createDoubles({ seed: 3 }));
  const { secrets } = started.doubles;
  installSshDefaults(secrets, { keyType: "ed25519" });
  installCloudDefaults(secrets);
  // node-vault adds "/v1" itself: its endpoint is the service's origin.
  const endpoint = started.base("secrets").replace(/\/v1$/, "");
  const vault = nodeVault({ endpoint, token: secrets.rootToken });
  return { ...started, secrets, endpoint, vault };
}

describeEachTransport("node-vault against the secrets service", (t) => {
  it("reads health without a token", async () => {
    const { endpoint } = await start(t);
    const health = await nodeVault({ endpoint }).health();
    expect(health).toMatchObject({ initialized: true, sealed: false, standby: false });
  });

  it("authenticates with its token option (X-Vault-Token): write, read and delete a role", async () => {
    // Regression (issue 7): every authenticated node-vault call answered 403 permission denied.
    const { vault } = await start(t);
    await vault.write("ssh/roles/ops", { key_type: "otp", default_user: "ops", cidr_list: "10.1.0.0/16" });
    const role = await vault.read("ssh/roles/ops");
    expect(role.data).toMatchObject({ key_type: "otp", default_user: "ops", cidr_list: "10.1.0.0/16" });
    await vault.delete("ssh/roles/ops");
    await expect(vault.read("ssh/roles/ops")).rejects.toMatchObject({ response: { statusCode: 404 } });
  });

  it("surfaces the service's refusals as node-vault errors (unknown token, policy without the capability)", async () => {
    const { endpoint, secrets } = await start(t);
    await expect(nodeVault({ endpoint, token: "s.unknown" }).read("ssh/roles/otp-role")).rejects.toThrow("permission denied");
    secrets.createPolicy("reader", { "ssh/roles/*": ["read"] });
    const reader = nodeVault({ endpoint, token: secrets.createToken({ policies: ["reader"] }).token });
    expect((await reader.read("ssh/roles/otp-role")).data).toMatchObject({ key_type: "otp" });
    await expect(reader.write("ssh/roles/otp-role", { key_type: "otp" })).rejects.toMatchObject({ response: { statusCode: 403 } });
  });

  it("drives the SSH engine through request(): OTP creds, verify (unauthenticated), lease lookup and revoke", async () => {
    const { vault, endpoint } = await start(t);
    const creds = await vault.request({ path: "/ssh/creds/otp-role", method: "POST", json: { ip: "10.20.30.40" } });
    expect(creds?.data).toMatchObject({ key_type: "otp", username: "ubuntu", ip: "10.20.30.40" });
    const leaseId = creds?.lease_id ?? "";
    expect(leaseId).toMatch(/^ssh\/creds\/otp-role\//);
    const lookup = await vault.write("sys/leases/lookup", { lease_id: leaseId });
    expect(lookup?.data).toMatchObject({ id: leaseId });
    const verified = await nodeVault({ endpoint }).request({ path: "/ssh/verify", method: "POST", json: { otp: creds?.data?.key } });
    expect(verified?.data).toMatchObject({ username: "ubuntu", ip: "10.20.30.40", role_name: "otp-role" });
    const again = await vault.request({ path: "/ssh/creds/otp-role", method: "POST", json: { ip: "10.20.30.41" } });
    await vault.revoke({ lease_id: again?.lease_id ?? "" });
    await expect(nodeVault({ endpoint }).request({ path: "/ssh/verify", method: "POST", json: { otp: again?.data?.key } })).rejects.toThrow("OTP not found");
  });

  it("reads cloud credentials and renews their lease on the simulator clock", async () => {
    const { vault, doubles } = await start(t);
    const creds = await vault.read("cloud/creds/deploy");
    expect(creds.data).toMatchObject({ access_key: expect.stringMatching(/^AKIA/), security_token: null });
    const leaseId = (creds as { lease_id?: string }).lease_id ?? "";
    doubles.advance("10m");
    const renewed = await vault.renew({ lease_id: leaseId, increment: 3600 });
    expect(renewed.lease_id).toBe(leaseId);
  });

  it("manages mounts through the sys calls", async () => {
    const { vault } = await start(t);
    expect(Object.keys((await vault.mounts()).data)).toEqual(expect.arrayContaining(["ssh/", "cloud/"]));
    await vault.mount({ mount_point: "ssh-b", type: "ssh" });
    expect(Object.keys((await vault.mounts()).data)).toContain("ssh-b/");
    await vault.write("ssh-b/roles/x", { key_type: "otp", default_user: "x", cidr_list: "10.0.0.0/8" });
    await vault.unmount({ mount_point: "ssh-b" });
    expect(Object.keys((await vault.mounts()).data)).not.toContain("ssh-b/");
  });

  it("answers node-vault's own integration calls: initialized(), init() on a running node, status()", async () => {
    // Regression (issue 23): node-vault 0.12's test/integration.js calls sys/init and
    // sys/seal-status first; both were 404 "no handler for route".
    const { endpoint, secrets } = await start(t);
    const vault = nodeVault({ endpoint });
    expect(await vault.initialized()).toEqual({ initialized: true });
    await expect(vault.init({ secret_shares: 1, secret_threshold: 1 })).rejects.toMatchObject({ message: "Vault is already initialized", response: { statusCode: 400 } });
    expect(await vault.status()).toMatchObject({ sealed: false, t: 1, n: 1, progress: 0 });
    secrets.setNodeState("sealed");
    expect(await vault.status()).toMatchObject({ sealed: true, t: 1, n: 1, progress: 0 });
  });

  it("initializes a node that is not initialized with init(), its schema checks passing", async () => {
    const { endpoint, secrets } = await start(t);
    secrets.setNodeState("not-initialized");
    const vault = nodeVault({ endpoint });
    expect(await vault.initialized()).toEqual({ initialized: false });
    const result = await vault.init({ secret_shares: 3, secret_threshold: 2 });
    expect(result.keys).toHaveLength(3);
    expect(await vault.status()).toMatchObject({ sealed: true, t: 2, n: 3, progress: 0 });
    secrets.setNodeState("active");
    expect((await nodeVault({ endpoint, token: result.root_token }).read("ssh/roles/otp-role")).data).toMatchObject({ key_type: "otp" });
  });

  it("enables a mount with config TTLs that its new leases carry", async () => {
    const { vault } = await start(t);
    await vault.request({ path: "/sys/mounts/ssh-short", method: "POST", json: { type: "ssh", config: { default_lease_ttl: "15m", max_lease_ttl: "1h" } } });
    await vault.write("ssh-short/roles/otp", { key_type: "otp", default_user: "ops", cidr_list: "10.0.0.0/8" });
    const creds = (await vault.write("ssh-short/creds/otp", { ip: "10.1.1.1" })) as { lease_duration?: number } | undefined;
    expect(creds?.lease_duration).toBe(900);
  });
});
