import axios from "axios";
import { expect, it } from "vitest";
import { DEFAULT_INSTALL_SCRIPT } from "../../../../src/simulator/secrets/ssh/ssh-roles.js";
import { describeEachTransport } from "../../../support/transports.js";
import { CA_KEYS } from "../../../simulator/secrets/ssh/fixtures.js";
import { startSsh } from "./ssh-harness.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const OTP_ROLE = { key_type: "otp", default_user: "ubuntu", cidr_list: "10.0.0.0/8", exclude_cidr_list: "10.9.0.0/16", port: 2222 };

describeEachTransport("secrets ssh: keys, roles and zero-address roles", (t) => {
  it("registers keys write-only and deletes them", async () => {
    const { send } = await startSsh(t);
    expect(await send("POST", "/ssh/keys/admin", { body: { key: CA_KEYS.RSA_PKCS1.privateKey } })).toEqual({ status: 204, body: undefined });
    expect(await send("GET", "/ssh/keys/admin")).toEqual({ status: 405, body: { errors: ["1 error occurred:\n\t* unsupported operation\n\n"] } });
    expect(await send("POST", "/ssh/keys/bad", { body: { key: "nope" } })).toEqual({ status: 400, body: { errors: ["Invalid key"] } });
    expect(await send("POST", "/ssh/keys/bad", { body: {} })).toEqual({ status: 400, body: { errors: ["Missing key"] } });
    expect((await send("DELETE", "/ssh/keys/admin")).status).toBe(204);
  });

  it("creates roles of the three key types and reads each in its own form", async () => {
    const { send } = await startSsh(t);
    await send("POST", "/ssh/keys/admin", { body: { key: CA_KEYS.ED25519_OPENSSH.privateKey } });
    expect((await send("POST", "/ssh/roles/otp-role", { body: OTP_ROLE })).status).toBe(204);
    expect((await send("POST", "/ssh/roles/dyn", { body: { key_type: "dynamic", key: "admin", admin_user: "root", default_user: "ubuntu", cidr_list: "10.0.0.0/8", key_bits: "2048" } })).status).toBe(204);
    const caRole = {
      key_type: "ca",
      allow_user_certificates: "true",
      allowed_users: "*",
      default_user: "ubuntu",
      ttl: "1h",
      max_ttl: 7200,
      default_extensions: [{ "permit-pty": "" }],
      allowed_user_key_lengths: { rsa: "2048,4096", ed25519: 0 },
    };
    expect((await send("POST", "/ssh/roles/ca-role", { body: caRole })).status).toBe(204);
    expect((await send("GET", "/ssh/roles/otp-role")).body.data).toEqual({
      allowed_users: "",
      cidr_list: "10.0.0.0/8",
      default_user: "ubuntu",
      exclude_cidr_list: "10.9.0.0/16",
      key_type: "otp",
      port: 2222,
    });
    expect((await send("GET", "/ssh/roles/dyn")).body.data).toEqual({
      admin_user: "root",
      allowed_users: "",
      cidr_list: "10.0.0.0/8",
      default_user: "ubuntu",
      exclude_cidr_list: "",
      install_script: DEFAULT_INSTALL_SCRIPT,
      key: "admin",
      key_bits: 2048,
      key_option_specs: "",
      key_type: "dynamic",
      port: 22,
    });
    expect((await send("GET", "/ssh/roles/ca-role")).body.data).toEqual({
      algorithm_signer: "default",
      allow_bare_domains: false,
      allow_host_certificates: false,
      allow_subdomains: false,
      allow_user_certificates: true,
      allow_user_key_ids: false,
      allowed_critical_options: "",
      allowed_domains: "",
      allowed_extensions: "",
      allowed_user_key_lengths: { rsa: [2048, 4096], ed25519: [0] },
      allowed_users: "*",
      allowed_users_template: false,
      default_critical_options: {},
      default_extensions: { "permit-pty": "" },
      default_user: "ubuntu",
      key_id_format: "",
      key_type: "ca",
      max_ttl: 7200,
      not_before_duration: 30,
      ttl: 3600,
    });
  });

  it("lists roles with key_info by LIST and by GET ?list=true (also from axios), and 404s an empty list", async () => {
    const { send, base } = await startSsh(t);
    expect(await send("LIST", "/ssh/roles")).toEqual({ status: 404, body: { errors: [] } });
    await send("POST", "/ssh/roles/otp-role", { body: OTP_ROLE });
    await send("POST", "/ssh/roles/ca-role", { body: { key_type: "ca", allow_host_certificates: true } });
    const expected = { keys: ["ca-role", "otp-role"], key_info: { "ca-role": { key_type: "ca" }, "otp-role": { key_type: "otp" } } };
    expect((await send("LIST", "/ssh/roles")).body.data).toEqual(expected);
    expect((await send("GET", "/ssh/roles?list=true")).body.data).toEqual(expected);
    const viaAxios = await axios.get(`${base}/ssh/roles/`, { params: { list: "1" }, headers: { "x-secrets-token": "root-token" } });
    expect(viaAxios.data.data).toEqual(expected);
  });

  it("refuses bad roles with 400 (500 where the real service does) and changes nothing", async () => {
    const { send } = await startSsh(t);
    expect(await send("POST", "/ssh/roles/r", { body: { default_user: "u" } })).toEqual({ status: 400, body: { errors: ["missing key type"] } });
    expect(await send("POST", "/ssh/roles/r", { body: { key_type: "otp", default_user: "u" } })).toEqual({ status: 400, body: { errors: ["missing cidr_list"] } });
    expect(await send("POST", "/ssh/roles/r", { body: { key_type: "ca" } })).toEqual({
      status: 400,
      body: { errors: ["Either 'allow_user_certificates' or 'allow_host_certificates' must be set to 'true'"] },
    });
    expect(await send("POST", "/ssh/roles/r", { body: { key_type: "otp", default_user: "u", cidr_list: "300.0.0.0/8" } })).toEqual({
      status: 500,
      body: { errors: ["failed to validate cidr_list: invalid CIDR address: 300.0.0.0/8"] },
    });
    expect(await send("POST", "/ssh/roles/r", { body: { key_type: "ca", allow_user_certificates: "maybe" } })).toMatchObject({ status: 400 });
    expect(await send("POST", "/ssh/roles/r", { body: { key_type: "ca", allow_user_certificates: true, ttl: "1d" } })).toMatchObject({ status: 400 });
    expect(await send("POST", "/ssh/roles/r", { body: { key_type: "ca", allow_user_certificates: true, default_extensions: "nope" } })).toMatchObject({ status: 400 });
    expect(await send("POST", "/ssh/roles/r", { body: { key_type: "ca", allow_user_certificates: true, allowed_user_key_lengths: { rsa: "big" } } })).toMatchObject({
      status: 400,
    });
    expect(await send("POST", "/ssh/roles/r", { body: "{not json" })).toMatchObject({ status: 400 });
    expect(await send("POST", "/ssh/roles/-bad-", { body: OTP_ROLE })).toEqual({ status: 404, body: { errors: ["1 error occurred:\n\t* unsupported path\n\n"] } });
    expect(await send("GET", "/ssh/roles/r")).toEqual({ status: 404, body: { errors: [] } });
  });

  it("deletes roles, taking them off the zero-address list", async () => {
    const { send } = await startSsh(t);
    await send("POST", "/ssh/roles/otp-role", { body: OTP_ROLE });
    await send("POST", "/ssh/roles/other", { body: OTP_ROLE });
    expect(await send("GET", "/ssh/config/zeroaddress")).toEqual({ status: 404, body: { errors: [] } });
    expect(await send("POST", "/ssh/config/zeroaddress", { body: { roles: "otp-role,other" } })).toEqual({ status: 204, body: undefined });
    expect((await send("GET", "/ssh/config/zeroaddress")).body.data).toEqual({ roles: ["otp-role", "other"] });
    expect((await send("POST", "/ssh/config/zeroaddress", { body: { roles: ["other"] } })).status).toBe(204);
    expect((await send("GET", "/ssh/config/zeroaddress")).body.data).toEqual({ roles: ["other"] });
    expect(await send("POST", "/ssh/config/zeroaddress", { body: { roles: "ghost" } })).toEqual({ status: 400, body: { errors: ['Role "ghost" does not exist'] } });
    expect(await send("POST", "/ssh/config/zeroaddress", { body: {} })).toEqual({ status: 400, body: { errors: ["Missing roles"] } });
    expect((await send("DELETE", "/ssh/roles/other")).status).toBe(204);
    expect((await send("GET", "/ssh/roles/other")).status).toBe(404);
    expect((await send("GET", "/ssh/config/zeroaddress")).body.data).toEqual({ roles: [] });
    expect((await send("DELETE", "/ssh/config/zeroaddress")).status).toBe(204);
    expect((await send("GET", "/ssh/config/zeroaddress")).status).toBe(404);
  });
});

describeEachTransport("secrets ssh: one-time passwords, dynamic keys and lookup", (t) => {
  it("issues an OTP with a lease for the default user and verifies it once, without a token", async () => {
    const { send, doubles } = await startSsh(t);
    await send("POST", "/ssh/roles/otp-role", { body: OTP_ROLE });
    const creds = await send("POST", "/ssh/creds/otp-role", { body: { ip: "10.1.2.3" } });
    expect(creds.status).toBe(200);
    expect(creds.body).toMatchObject({ renewable: false, lease_duration: 768 * 3600, warnings: null, auth: null });
    expect(creds.body.lease_id).toMatch(/^ssh\/creds\/otp-role\/[0-9A-Za-z]+$/);
    expect(creds.body.data).toEqual({ ip: "10.1.2.3", key: expect.stringMatching(UUID), key_type: "otp", port: 2222, username: "ubuntu" });
    doubles.advance("1h");
    const verified = await send("POST", "/ssh/verify", { body: { otp: creds.body.data.key }, token: null });
    expect(verified.status).toBe(200);
    expect(verified.body.data).toEqual({ username: "ubuntu", ip: "10.1.2.3", role_name: "otp-role" });
    expect(await send("POST", "/ssh/verify", { body: { otp: creds.body.data.key }, token: null })).toEqual({ status: 400, body: { errors: ["OTP not found"] } });
  });

  it("refuses an OTP after its lease ended, and one revoked with its lease", async () => {
    const { send, doubles, ssh, secrets } = await startSsh(t);
    await send("POST", "/ssh/roles/otp-role", { body: OTP_ROLE });
    ssh.setOtpTtl("5m");
    const first = (await send("POST", "/ssh/creds/otp-role", { body: { ip: "10.0.0.1", username: "deploy" } })).body;
    const second = (await send("POST", "/ssh/creds/otp-role", { body: { ip: "10.0.0.2" } })).body;
    expect(first.lease_duration).toBe(300);
    secrets.revokeLease(second.lease_id);
    expect((await send("POST", "/ssh/verify", { body: { otp: second.data.key }, token: null })).body).toEqual({ errors: ["OTP not found"] });
    doubles.advance("5m");
    expect(await send("POST", "/ssh/verify", { body: { otp: first.data.key }, token: null })).toEqual({ status: 400, body: { errors: ["OTP not found"] } });
    expect(ssh.liveOtps()).toEqual([]);
  });

  it("answers the echo request and refuses a missing otp", async () => {
    const { send } = await startSsh(t);
    expect((await send("POST", "/ssh/verify", { body: { otp: "verify-echo-request" }, token: null })).body.data).toEqual({ message: "verify-echo-response" });
    expect(await send("POST", "/ssh/verify", { body: {}, token: null })).toEqual({ status: 400, body: { errors: ["Missing otp"] } });
  });

  it("refuses credentials outside the role's rules with the real messages", async () => {
    const { send } = await startSsh(t);
    await send("POST", "/ssh/roles/otp-role", { body: { ...OTP_ROLE, allowed_users: "deploy" } });
    const refuse = async (body: unknown, role = "otp-role") => (await send("POST", `/ssh/creds/${role}`, { body })).body;
    expect(await refuse({})).toEqual({ errors: ["Missing ip"] });
    expect(await refuse({ ip: "10.0.0.1" }, "ghost")).toEqual({ errors: ['Role "ghost" not found'] });
    expect(await refuse({ ip: "10.0.0.1", username: "root" })).toEqual({ errors: ["Username is not present is allowed users list"] });
    expect(await refuse({ ip: "ten" })).toEqual({ errors: ['Invalid IP "ten"'] });
    expect(await refuse({ ip: "192.168.1.1" })).toEqual({ errors: ["Error validating IP: IP does not belong to role"] });
    expect(await refuse({ ip: "10.9.0.1" })).toEqual({ errors: ["Error validating IP: IP does not belong to role"] });
    expect((await send("POST", "/ssh/creds/otp-role", { body: { ip: "10.0.0.1", username: "deploy" } })).status).toBe(200);
    expect((await send("GET", "/ssh/creds/otp-role")).status).toBe(405);
  });

  it("lets zero-address roles issue OTPs for any IP", async () => {
    const { send } = await startSsh(t);
    await send("POST", "/ssh/roles/anywhere", { body: OTP_ROLE });
    await send("POST", "/ssh/config/zeroaddress", { body: { roles: "anywhere" } });
    const creds = await send("POST", "/ssh/creds/anywhere", { body: { ip: "2001:db8:0:0::7" } });
    expect(creds.body.data.ip).toBe("2001:db8::7");
  });

  it("answers dynamic roles with the spec's dynamic response and lease_duration 0", async () => {
    const { send } = await startSsh(t);
    await send("POST", "/ssh/keys/admin", { body: { key: CA_KEYS.RSA_PKCS1.privateKey } });
    await send("POST", "/ssh/roles/dyn", { body: { key_type: "dynamic", key: "admin", admin_user: "root", default_user: "ubuntu", cidr_list: "10.0.0.0/8" } });
    const creds = await send("POST", "/ssh/creds/dyn", { body: { ip: "10.0.0.9" } });
    expect(creds.status).toBe(200);
    expect(creds.body).toMatchObject({ lease_id: "", lease_duration: 0, renewable: false });
    expect(creds.body.data).toMatchObject({ admin_user: "root", default_user: "ubuntu", key_bits: 1024, key_type: "dynamic", port: 22, cidr_list: "10.0.0.0/8" });
    expect(creds.body.data.key).toMatch(/^-----BEGIN RSA PRIVATE KEY-----\n/);
  });

  it("looks roles up by IP, zero-address roles included", async () => {
    const { send } = await startSsh(t);
    await send("POST", "/ssh/roles/otp-role", { body: OTP_ROLE });
    await send("POST", "/ssh/roles/lan", { body: { ...OTP_ROLE, cidr_list: "192.168.0.0/16" } });
    expect((await send("POST", "/ssh/lookup", { body: { ip: "10.0.0.1" } })).body.data).toEqual({ roles: ["otp-role"] });
    await send("POST", "/ssh/config/zeroaddress", { body: { roles: "lan" } });
    expect((await send("POST", "/ssh/lookup", { body: { ip: "10.0.0.1" } })).body.data).toEqual({ roles: ["otp-role", "lan"] });
    expect(await send("POST", "/ssh/lookup", { body: {} })).toEqual({ status: 400, body: { errors: ["Missing ip"] } });
    expect(await send("POST", "/ssh/lookup", { body: { ip: "x" } })).toEqual({ status: 400, body: { errors: ['Invalid IP "x"'] } });
  });

  it("requires a token everywhere but verify and public_key", async () => {
    const { send } = await startSsh(t);
    for (const [method, path] of [
      ["POST", "/ssh/creds/otp-role"],
      ["POST", "/ssh/lookup"],
      ["GET", "/ssh/roles/otp-role"],
      ["LIST", "/ssh/roles"],
      ["POST", "/ssh/sign/ca-role"],
      ["GET", "/ssh/config/ca"],
      ["POST", "/ssh/keys/k"],
    ] as const) {
      // fetch refuses a body on GET (nock used to stay active and let it through)
      expect(await send(method, path, { ...(method === "POST" ? { body: {} } : {}), token: null }), `${method} ${path}`).toEqual({ status: 403, body: { errors: ["permission denied"] } });
    }
  });

  it("gives byte-identical answers for the same seed and calls", async () => {
    const run = async () => {
      const { call, doubles } = await startSsh(t, "same-seed");
      await call("POST", "/ssh/roles/otp-role", { body: OTP_ROLE });
      const texts = [await (await call("POST", "/ssh/creds/otp-role", { body: { ip: "10.0.0.1" } })).text()];
      texts.push(await (await call("LIST", "/ssh/roles")).text());
      await doubles.close();
      return texts.join("\n");
    };
    expect(await run()).toBe(await run());
  });
});

