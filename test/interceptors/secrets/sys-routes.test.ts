/**
 * Issue 23 item 1 (system part): `sys/seal-status`, `sys/init`, `sys/internal/ui/mounts`, mount
 * tune and `config` TTLs applied to new leases, and response wrapping (`X-Vault-Wrap-TTL`,
 * `sys/wrapping/*`), through HTTP on every transport.
 */
import { expect, it } from "vitest";
import { createDoubles } from "../../../src/index.js";
import { installCloudDefaults } from "../../../src/scenarios/secrets/cloud/cloud-scenario.js";
import { inspectCertificate } from "../../../src/scenarios/secrets/ssh/certificate-inspection.js";
import { installSshDefaults } from "../../../src/scenarios/secrets/ssh/index.js";
import { PUBLIC_KEYS } from "../../simulator/secrets/ssh/fixtures.js";
import { describeEachTransport } from "../../support/transports.js";

const START = "2024-01-01T00:00:00Z";

describeEachTransport("secrets: system routes around the spec's edges", (t) => {
  const start = async () => {
    const started = await t.startWith(createDoubles({ seed: 23, start: START }));
    const { secrets } = started.doubles;
    installSshDefaults(secrets, { keyType: "ed25519" });
    const base = started.base("secrets");
    const root = secrets.rootToken;
    const call = (method: string, path: string, options: { body?: unknown; token?: string | null; headers?: Record<string, string> } = {}) => {
      const token = options.token === undefined ? root : options.token;
      return fetch(`${base}${path}`, {
        method,
        headers: { ...(token === null ? {} : { "x-vault-token": token }), ...(options.body === undefined ? {} : { "content-type": "application/json" }), ...options.headers },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
    };
    const wrapped = (ttl: string) => ({ "x-vault-wrap-ttl": ttl });
    return { ...started, secrets, base, root, call, wrapped };
  };

  // --- seal status and init ---------------------------------------------------------------

  it("answers sys/seal-status from the node state, without a token, in every state", async () => {
    const { call, secrets, doubles } = await start();
    const active = await call("GET", "/sys/seal-status", { token: null });
    expect(active.status).toBe(200);
    const cluster = await (await call("GET", "/sys/health", { token: null })).json();
    expect(await active.json()).toEqual({
      type: "shamir",
      initialized: true,
      sealed: false,
      t: 1,
      n: 1,
      progress: 0,
      nonce: "",
      version: "1.15.6+ent",
      migration: false,
      cluster_name: cluster.cluster_name,
      cluster_id: cluster.cluster_id,
      recovery_seal: false,
      storage_type: "raft",
    });
    secrets.setNodeState("sealed");
    const sealed = await call("GET", "/sys/seal-status", { token: null });
    expect(sealed.status).toBe(200);
    const sealedBody = await sealed.json();
    expect(sealedBody).toMatchObject({ initialized: true, sealed: true, t: 1, n: 1, progress: 0 });
    expect(sealedBody).not.toHaveProperty("cluster_name");
    // Everything else still answers 503 while sealed.
    expect((await call("GET", "/ssh/roles/otp-role")).status).toBe(503);
    secrets.setNodeState("not-initialized");
    expect(await (await call("GET", "/sys/seal-status", { token: null })).json()).toMatchObject({ initialized: false, sealed: true, t: 0, n: 0 });
    secrets.setNodeState("standby");
    expect(await (await call("GET", "/sys/seal-status", { token: null })).json()).toMatchObject({ initialized: true, sealed: false });
    expect(doubles.journal.entries.filter((e) => e.endpoint === "GET /sys/seal-status").map((e) => e.status)).toEqual([200, 200, 200, 200]);
  });

  it("answers GET sys/init with the initialized flag and refuses PUT on a running node as the real service does", async () => {
    const { call, secrets } = await start();
    expect(await (await call("GET", "/sys/init", { token: null })).json()).toEqual({ initialized: true });
    const again = await call("PUT", "/sys/init", { token: null, body: { secret_shares: 1, secret_threshold: 1 } });
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ errors: ["Vault is already initialized"] });
    // Sealed is still initialized: same answers, not 503.
    secrets.setNodeState("sealed");
    expect(await (await call("GET", "/sys/init", { token: null })).json()).toEqual({ initialized: true });
    expect(await (await call("PUT", "/sys/init", { token: null, body: {} })).json()).toEqual({ errors: ["Vault is already initialized"] });
    expect(secrets.nodeState).toBe("sealed");
  });

  it("initializes a node that is not initialized: keys, a new root token, sealed with t and n; bad seal configurations are refused", async () => {
    const { call, secrets } = await start();
    secrets.setNodeState("not-initialized");
    expect(await (await call("GET", "/sys/init", { token: null })).json()).toEqual({ initialized: false });
    for (const [body, message] of [
      [{ secret_shares: 0, secret_threshold: 1 }, "invalid seal configuration: shares must be at least one"],
      [{ secret_shares: 3, secret_threshold: 1 }, "invalid seal configuration: threshold must be greater than one for multiple shares"],
      [{ secret_shares: 2, secret_threshold: 3 }, "invalid seal configuration: threshold cannot be larger than shares"],
    ] as const) {
      const refused = await call("PUT", "/sys/init", { token: null, body });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ errors: [message] });
      expect(secrets.nodeState).toBe("not-initialized");
    }
    const done = await call("PUT", "/sys/init", { token: null, body: { secret_shares: 5, secret_threshold: 3 } });
    expect(done.status).toBe(200);
    const result = await done.json();
    expect(result.keys).toHaveLength(5);
    expect(result.keys_base64).toEqual(result.keys.map((k: string) => Buffer.from(k, "hex").toString("base64")));
    expect(result.root_token).toMatch(/^s\.[0-9A-Za-z]{24}$/);
    expect(secrets.nodeState).toBe("sealed");
    expect(await (await call("GET", "/sys/seal-status", { token: null })).json()).toMatchObject({ initialized: true, sealed: true, t: 3, n: 5 });
    expect(await (await call("PUT", "/sys/init", { token: null, body: { secret_shares: 1, secret_threshold: 1 } })).json()).toEqual({ errors: ["Vault is already initialized"] });
    secrets.setNodeState("active");
    expect((await call("GET", "/ssh/roles/otp-role", { token: result.root_token })).status).toBe(200);
  });

  // --- UI mounts ----------------------------------------------------------------------------

  it("lists the mounts a token may see on sys/internal/ui/mounts (all for root, none without a token)", async () => {
    const { call, secrets } = await start();
    const all = await (await call("GET", "/sys/internal/ui/mounts")).json();
    expect(Object.keys(all.data.secret)).toEqual(["cloud/", "ssh/"]);
    expect(all.data.secret["ssh/"]).toMatchObject({ type: "ssh", options: null, config: { default_lease_ttl: 0, max_lease_ttl: 0 }, accessor: expect.stringMatching(/^ssh_/) });
    expect(all.data.auth).toEqual({});
    expect((await (await call("GET", "/sys/internal/ui/mounts", { token: null })).json()).data).toEqual({ auth: {}, secret: {} });
    secrets.createPolicy("ssh-user", { "ssh/creds/*": ["update"], "cloud/*": ["deny"] });
    const user = secrets.createToken({ policies: ["ssh-user"] }).token;
    expect(Object.keys((await (await call("GET", "/sys/internal/ui/mounts", { token: user })).json()).data.secret)).toEqual(["ssh/"]);
  });

  it("answers sys/internal/ui/mounts/:path with the owning mount and its path, and 403 where there is no mount or no access", async () => {
    const { call, secrets } = await start();
    const ssh = await call("GET", "/sys/internal/ui/mounts/ssh/roles/otp-role");
    expect(ssh.status).toBe(200);
    expect((await ssh.json()).data).toMatchObject({ type: "ssh", path: "ssh/", options: null });
    secrets.mount("team/ssh", "ssh");
    expect((await (await call("GET", "/sys/internal/ui/mounts/team/ssh/creds/x")).json()).data).toMatchObject({ type: "ssh", path: "team/ssh/" });
    for (const [path, token] of [
      ["/sys/internal/ui/mounts/nothing/here", secrets.rootToken],
      ["/sys/internal/ui/mounts/ssh", null],
      ["/sys/internal/ui/mounts/cloud/creds/x", secrets.createToken({ policies: [] }).token],
    ] as const) {
      const refused = await call("GET", path, { token });
      expect(refused.status, path).toBe(403);
      expect(await refused.json()).toEqual({ errors: ["permission denied"] });
    }
  });

  // --- mount TTLs ---------------------------------------------------------------------------

  it("applies tuned TTLs to the mount's new leases, reads them back, and leaves earlier leases alone", async () => {
    const { call, doubles } = await start();
    const before = await (await call("POST", "/ssh/creds/otp-role", { body: { ip: "10.0.0.1" } })).json();
    expect(before.lease_duration).toBe(2_764_800);
    expect((await call("POST", "/sys/mounts/ssh/tune", { body: { default_lease_ttl: "1h", max_lease_ttl: 7200 } })).status).toBe(204);
    expect((await (await call("GET", "/sys/mounts/ssh/tune")).json()).data).toMatchObject({ default_lease_ttl: 3600, max_lease_ttl: 7200 });
    expect((await (await call("GET", "/sys/mounts")).json()).data["ssh/"].config).toMatchObject({ default_lease_ttl: 3600, max_lease_ttl: 7200 });
    const after = await (await call("POST", "/ssh/creds/otp-role", { body: { ip: "10.0.0.2" } })).json();
    expect(after.lease_duration).toBe(3600);
    const lookup = async (id: string) => call("PUT", "/sys/leases/lookup", { body: { lease_id: id } });
    expect((await (await lookup(after.lease_id)).json()).data.ttl).toBe(3600);
    expect((await (await lookup(before.lease_id)).json()).data.ttl).toBe(2_764_800);
    doubles.advance("1h");
    expect((await lookup(after.lease_id)).status).toBe(400);
    expect((await lookup(before.lease_id)).status).toBe(200);
    // "system" puts a TTL back to the system's.
    expect((await call("POST", "/sys/mounts/ssh/tune", { body: { default_lease_ttl: "system", max_lease_ttl: "system" } })).status).toBe(204);
    expect((await (await call("GET", "/sys/mounts/ssh/tune")).json()).data).toMatchObject({ default_lease_ttl: 2_764_800, max_lease_ttl: 2_764_800 });
    expect((await (await call("POST", "/ssh/creds/otp-role", { body: { ip: "10.0.0.3" } })).json()).lease_duration).toBe(2_764_800);
  });

  it("caps new leases by the tuned max alone, and by the system max (768h) when the mount's max is above it", async () => {
    const { call } = await start();
    expect((await call("POST", "/sys/mounts/ssh/tune", { body: { max_lease_ttl: "30m" } })).status).toBe(204);
    expect((await (await call("GET", "/sys/mounts/ssh/tune")).json()).data).toMatchObject({ default_lease_ttl: 2_764_800, max_lease_ttl: 1800 });
    expect((await (await call("POST", "/ssh/creds/otp-role", { body: { ip: "10.0.0.1" } })).json()).lease_duration).toBe(1800);
    expect((await call("POST", "/sys/mounts/ssh/tune", { body: { default_lease_ttl: "900h", max_lease_ttl: "1000h" } })).status).toBe(204);
    expect((await (await call("GET", "/sys/mounts/ssh/tune")).json()).data).toMatchObject({ default_lease_ttl: 3_240_000, max_lease_ttl: 3_600_000 });
    expect((await (await call("POST", "/ssh/creds/otp-role", { body: { ip: "10.0.0.2" } })).json()).lease_duration).toBe(2_764_800);
  });

  it("signs SSH certificates for the mount's tuned default and maximum where the role sets none (the spec's system default / maximum)", async () => {
    const { call } = await start();
    await call("POST", "/ssh/roles/plain-ca", { body: { key_type: "ca", allow_user_certificates: true, allowed_users: "*", default_user: "ubuntu" } });
    expect((await call("POST", "/sys/mounts/ssh/tune", { body: { default_lease_ttl: "2h", max_lease_ttl: "3h" } })).status).toBe(204);
    const signed = await (await call("POST", "/ssh/sign/plain-ca", { body: { public_key: PUBLIC_KEYS.ED25519 } })).json();
    const certificate = inspectCertificate(signed.data.signed_key);
    expect(certificate.validBefore - Date.parse(START)).toBe(2 * 3_600_000);
    const refused = await call("POST", "/ssh/sign/plain-ca", { body: { public_key: PUBLIC_KEYS.ED25519, ttl: "4h" } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ errors: ["ttl is larger than maximum allowed 10800"] });
  });

  it("gives cloud IAM-user leases the mount's tuned default when config/lease sets none, and caps them by its max", async () => {
    const { call, secrets } = await start();
    installCloudDefaults(secrets);
    expect((await (await call("GET", "/cloud/creds/deploy")).json()).lease_duration).toBe(2_764_800);
    await call("POST", "/sys/mounts/cloud/tune", { body: { default_lease_ttl: "45m" } });
    expect((await (await call("GET", "/cloud/creds/deploy")).json()).lease_duration).toBe(2700);
    await call("POST", "/cloud/config/lease", { body: { lease: "2h", lease_max: "4h" } });
    await call("POST", "/sys/mounts/cloud/tune", { body: { max_lease_ttl: "90m" } });
    expect((await (await call("GET", "/cloud/creds/deploy")).json()).lease_duration).toBe(5400);
  });

  it("enables a mount with config TTLs that its leases carry", async () => {
    const { call } = await start();
    expect((await call("POST", "/sys/mounts/ssh-short", { body: { type: "ssh", config: { default_lease_ttl: "30m", max_lease_ttl: "1h" } } })).status).toBe(204);
    expect((await (await call("GET", "/sys/mounts")).json()).data["ssh-short/"].config).toMatchObject({ default_lease_ttl: 1800, max_lease_ttl: 3600 });
    expect((await (await call("GET", "/sys/mounts/ssh-short/tune")).json()).data).toMatchObject({ default_lease_ttl: 1800, max_lease_ttl: 3600 });
    await call("POST", "/ssh-short/roles/otp", { body: { key_type: "otp", default_user: "ops", cidr_list: "10.0.0.0/8" } });
    expect((await (await call("POST", "/ssh-short/creds/otp", { body: { ip: "10.1.2.3" } })).json()).lease_duration).toBe(1800);
  });

  it("takes mount TTLs from the scenario too (mount options and tuneMount), refusing a default above the max", async () => {
    const { call, secrets } = await start();
    secrets.mount("ssh-fixture", "ssh", { defaultLeaseTtl: "20m", maxLeaseTtl: "1h" });
    expect((await (await call("GET", "/sys/mounts/ssh-fixture/tune")).json()).data).toMatchObject({ default_lease_ttl: 1200, max_lease_ttl: 3600 });
    secrets.tuneMount("ssh", { defaultLeaseTtl: "10m" });
    expect((await (await call("POST", "/ssh/creds/otp-role", { body: { ip: "10.0.0.1" } })).json()).lease_duration).toBe(600);
    expect(() => secrets.tuneMount("ssh", { maxLeaseTtl: "5m" })).toThrow("backend max lease TTL of 300 would be less than backend default lease TTL of 600");
    secrets.tuneMount("ssh", { defaultLeaseTtl: "system" });
    expect((await (await call("GET", "/sys/mounts/ssh/tune")).json()).data.default_lease_ttl).toBe(2_764_800);
  });

  it("refuses TTL pairs the real service refuses, with its wording, and changes nothing", async () => {
    const { call } = await start();
    await call("POST", "/sys/mounts/ssh/tune", { body: { default_lease_ttl: "1h", max_lease_ttl: "2h" } });
    const refusals: [string, unknown, string][] = [
      ["/sys/mounts/ssh/tune", { default_lease_ttl: "3h" }, "backend max lease TTL of 7200 would be less than backend default lease TTL of 10800"],
      ["/sys/mounts/ssh/tune", { max_lease_ttl: "system", default_lease_ttl: "800h" }, "new backend default lease TTL of 2880000 greater than system max lease TTL of 2764800"],
      ["/sys/mounts/ssh/tune", { default_lease_ttl: "abc", allowed_managed_keys: ["k"] }, 'time: invalid duration "abc"'],
      ["/sys/mounts/ssh/tune", { max_lease_ttl: "10m", allowed_managed_keys: ["k"] }, "backend max lease TTL of 600 would be less than backend default lease TTL of 3600"],
      ["/sys/mounts/x", { type: "ssh", config: { default_lease_ttl: "2h", max_lease_ttl: "1h" } }, "given default lease TTL greater than given max lease TTL"],
      ["/sys/mounts/x", { type: "ssh", config: { default_lease_ttl: "800h" } }, "given default lease TTL greater than system max lease TTL of 2764800"],
      ["/sys/mounts/x", { type: "ssh", config: { default_lease_ttl: "soon" } }, 'unable to parse default TTL of soon: time: invalid duration "soon"'],
    ];
    for (const [path, body, message] of refusals) {
      const refused = await call("POST", path, { body });
      expect(refused.status, message).toBe(400);
      expect(await refused.json()).toEqual({ errors: [message] });
    }
    const tune = (await (await call("GET", "/sys/mounts/ssh/tune")).json()).data;
    expect(tune).toMatchObject({ default_lease_ttl: 3600, max_lease_ttl: 7200 });
    expect(tune).not.toHaveProperty("allowed_managed_keys");
    expect((await call("GET", "/sys/mounts/x/tune")).status).toBe(400);
  });

  // --- response wrapping --------------------------------------------------------------------

  it("wraps a read: the answer carries only wrap_info, and unwrapping once gives the original answer", async () => {
    const { call, wrapped } = await start();
    const plain = await (await call("GET", "/ssh/roles/otp-role")).json();
    const response = await call("GET", "/ssh/roles/otp-role", { headers: wrapped("5m") });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({
      request_id: expect.any(String),
      lease_id: "",
      renewable: false,
      lease_duration: 0,
      data: null,
      wrap_info: {
        token: expect.stringMatching(/^s\.[0-9A-Za-z]{24}$/),
        accessor: expect.stringMatching(/^[0-9A-Za-z]{24}$/),
        ttl: 300,
        creation_time: "2024-01-01T00:00:00Z",
        creation_path: "ssh/roles/otp-role",
      },
      warnings: null,
      auth: null,
    });
    const token = body.wrap_info.token;
    const unwrapped = await call("POST", "/sys/wrapping/unwrap", { body: { token } });
    expect(unwrapped.status).toBe(200);
    expect(await unwrapped.json()).toEqual({ ...plain, request_id: body.request_id });
    const again = await call("POST", "/sys/wrapping/unwrap", { body: { token } });
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ errors: ["wrapping token is not valid or does not exist"] });
  });

  it("wraps a write whose effect happens (an OTP is issued), unwrapped with the wrapping token as X-Vault-Token", async () => {
    const { call, wrapped, base } = await start();
    const body = await (await call("POST", "/ssh/creds/otp-role", { body: { ip: "10.0.0.9" }, headers: wrapped("60") })).json();
    expect(body.data).toBeNull();
    expect(body.wrap_info).toMatchObject({ ttl: 60, creation_path: "ssh/creds/otp-role" });
    const unwrapped = await (await call("POST", "/sys/wrapping/unwrap", { token: body.wrap_info.token })).json();
    expect(unwrapped.data).toMatchObject({ key_type: "otp", ip: "10.0.0.9" });
    expect(unwrapped.lease_id).toMatch(/^ssh\/creds\/otp-role\//);
    const verified = await fetch(`${base}/ssh/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ otp: unwrapped.data.key }) });
    expect((await verified.json()).data).toMatchObject({ ip: "10.0.0.9", role_name: "otp-role" });
  });

  it("looks a wrapping token up without spending it, and ends it at its TTL on the simulator clock", async () => {
    const { call, wrapped, doubles } = await start();
    const token = (await (await call("GET", "/ssh/roles/otp-role", { headers: wrapped("5m") })).json()).wrap_info.token;
    doubles.advance("1m");
    const lookup = await call("POST", "/sys/wrapping/lookup", { token: null, body: { token } });
    expect(lookup.status).toBe(200);
    expect((await lookup.json()).data).toEqual({ creation_path: "ssh/roles/otp-role", creation_time: "2024-01-01T00:00:00Z", creation_ttl: 300 });
    expect((await (await call("GET", `/sys/wrapping/lookup?token=${token}`, { token: null })).json()).data.creation_ttl).toBe(300);
    doubles.advance(239_999);
    expect((await call("POST", "/sys/wrapping/lookup", { token: null, body: { token } })).status).toBe(200);
    doubles.advance(1);
    for (const path of ["/sys/wrapping/lookup", "/sys/wrapping/unwrap"]) {
      const expired = await call("POST", path, { body: { token } });
      expect(expired.status, path).toBe(400);
      expect(await expired.json()).toEqual({ errors: ["wrapping token is not valid or does not exist"] });
    }
  });

  it("rewraps: a new token with the original TTL and path, the old one spent", async () => {
    const { call, wrapped, doubles } = await start();
    const first = (await (await call("GET", "/ssh/roles/otp-role", { headers: wrapped("10m") })).json()).wrap_info;
    doubles.advance("2m");
    const rewrapped = await (await call("POST", "/sys/wrapping/rewrap", { body: { token: first.token } })).json();
    expect(rewrapped.data).toBeNull();
    expect(rewrapped.wrap_info).toMatchObject({ ttl: 600, creation_path: "ssh/roles/otp-role", creation_time: "2024-01-01T00:02:00Z" });
    expect(rewrapped.wrap_info.token).not.toBe(first.token);
    expect((await call("POST", "/sys/wrapping/unwrap", { body: { token: first.token } })).status).toBe(400);
    expect((await (await call("POST", "/sys/wrapping/unwrap", { body: { token: rewrapped.wrap_info.token } })).json()).data).toMatchObject({ key_type: "otp" });
    expect(await (await call("POST", "/sys/wrapping/rewrap", { body: { token: first.token } })).json()).toEqual({ errors: ["wrapping token is not valid or does not exist"] });
  });

  it("wraps a body of the caller's own with sys/wrapping/wrap, which needs a wrap TTL", async () => {
    const { call, wrapped, secrets } = await start();
    const user = secrets.createToken({ policies: [] }).token; // the default policy allows wrap and unwrap
    const info = (await (await call("POST", "/sys/wrapping/wrap", { token: user, body: { password: "hunter2", n: 1 }, headers: wrapped("1h") })).json()).wrap_info;
    expect(info).toMatchObject({ ttl: 3600, creation_path: "sys/wrapping/wrap" });
    expect((await (await call("POST", "/sys/wrapping/unwrap", { token: user, body: { token: info.token } })).json()).data).toEqual({ password: "hunter2", n: 1 });
    const refused = await call("POST", "/sys/wrapping/wrap", { body: { a: 1 } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ errors: ["endpoint requires response wrapping to be used"] });
  });

  it("refuses bad wrap TTLs, wraps nothing that has no answer, and checks tokens as usual", async () => {
    const { call, wrapped, secrets } = await start();
    for (const [ttl, message] of [
      ["abc", 'time: invalid duration "abc"'],
      ["-5", "requested wrap ttl cannot be negative"],
    ]) {
      const refused = await call("GET", "/ssh/roles/otp-role", { headers: wrapped(ttl ?? "") });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ errors: [message] });
    }
    // 0 means no wrapping; 204 answers and errors are not wrapped.
    expect((await (await call("GET", "/ssh/roles/otp-role", { headers: wrapped("0") })).json()).data).toMatchObject({ key_type: "otp" });
    expect((await call("POST", "/ssh/roles/web", { body: { key_type: "otp", default_user: "u", cidr_list: "10.0.0.0/8" }, headers: wrapped("5m") })).status).toBe(204);
    const missing = await call("GET", "/ssh/roles/nope", { headers: wrapped("5m") });
    expect(missing.status).toBe(404);
    expect((await call("GET", "/ssh/roles/otp-role", { token: "s.unknown", headers: wrapped("5m") })).status).toBe(403);
    // Unwrapping with the token in the body needs a token of the caller's own, with the default policy.
    const token = (await (await call("GET", "/ssh/roles/otp-role", { headers: wrapped("5m") })).json()).wrap_info.token;
    expect((await call("POST", "/sys/wrapping/unwrap", { token: null, body: { token } })).status).toBe(403);
    const bare = secrets.createToken({ policies: [], noDefaultPolicy: true }).token;
    expect((await call("POST", "/sys/wrapping/unwrap", { token: bare, body: { token } })).status).toBe(403);
    expect((await call("POST", "/sys/wrapping/lookup", { token: null, body: { token } })).status).toBe(200);
    expect((await call("POST", "/sys/wrapping/unwrap", { token: null, body: {} })).status).toBe(400);
  });
});
