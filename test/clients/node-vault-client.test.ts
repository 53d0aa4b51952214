/**
 * node-vault-client 1.0.2, configured as its README says (`new VaultClient({ api: { url },
 * auth: { type: "token", config: { token } } })`), against the secrets service on every transport
 * (issue 23): it looks its token up (`GET /v1/auth/token/lookup-self`) before its first call, so
 * every call answered 404 `no handler for route` before the token auth method existed.
 */
import { createRequire } from "node:module";
import { afterEach, expect, it } from "vitest";
import { createDoubles } from "../../src/index.js";
import { installSshDefaults } from "../../src/scenarios/secrets/ssh/index.js";
import { describeEachTransport, type TransportHarness } from "../support/transports.js";

interface Lease {
  getData(): Record<string, unknown>;
  getValue(key: string): unknown;
}
interface VaultClient {
  read(path: string): Promise<Lease>;
  list(path: string): Promise<Lease>;
  write(path: string, data: unknown): Promise<unknown>;
}
interface VaultClientClass {
  new (options: { api: { url: string }; auth: { type: string; config: { token: string } }; logger: false }): VaultClient;
  clear(name?: string): void;
}
const VaultClient = createRequire(import.meta.url)("node-vault-client") as VaultClientClass;

async function start(t: TransportHarness) {
  const started = await t.startWith(createDoubles({ seed: 5 }));
  const { secrets } = started.doubles;
  installSshDefaults(secrets, { keyType: "ed25519" });
  // The client joins "v1" itself: its url is the service's origin.
  const url = started.base("secrets").replace(/\/v1$/, "");
  const client = (token: string) => new VaultClient({ api: { url }, auth: { type: "token", config: { token } }, logger: false });
  return { ...started, secrets, client, base: started.base("secrets") };
}

afterEach(() => VaultClient.clear());

describeEachTransport("node-vault-client 1.0.2 against the secrets service", (t) => {
  it("looks its token up first, then writes, reads and lists", async () => {
    const { secrets, client, doubles } = await start(t);
    const vault = client(secrets.rootToken);
    await vault.write("ssh/roles/ops", { key_type: "otp", default_user: "ops", cidr_list: "10.1.0.0/16" });
    const role = await vault.read("ssh/roles/ops");
    expect(role.getData()).toMatchObject({ key_type: "otp", default_user: "ops" });
    expect(role.getValue("default_user")).toBe("ops");
    const listed = await vault.list("ssh/roles");
    expect(listed.getData().keys).toContain("ops");
    const paths = doubles.handler.journal.map((entry) => `${entry.method} ${new URL(entry.url).pathname} ${entry.status}`);
    expect(paths[0]).toBe("GET /v1/auth/token/lookup-self 200");
  });

  it("works with a token made over HTTP whose policy allows the reads, and surfaces refusals", async () => {
    const { secrets, client, base } = await start(t);
    secrets.createPolicy("reader", { "ssh/roles/*": ["read"] });
    // Not renewable: the client would otherwise start its renewal timer on the real clock.
    const created = await fetch(`${base}/auth/token/create`, {
      method: "POST",
      headers: { "x-vault-token": secrets.rootToken, "content-type": "application/json" },
      body: JSON.stringify({ policies: ["reader"], ttl: "1h", renewable: false }),
    });
    const token = ((await created.json()) as { auth: { client_token: string } }).auth.client_token;
    const reader = client(token);
    expect((await reader.read("ssh/roles/otp-role")).getData()).toMatchObject({ key_type: "otp" });
    await expect(reader.write("ssh/roles/otp-role", { key_type: "otp" })).rejects.toMatchObject({ statusCode: 403 });
    // An unknown token fails at the client's own lookup: 403 permission denied.
    await expect(client("s.unknown").read("ssh/roles/otp-role")).rejects.toMatchObject({ statusCode: 403, error: { errors: ["permission denied"] } });
  });
});
