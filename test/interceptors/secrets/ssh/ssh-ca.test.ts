import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { inspectCertificate, sshFingerprint } from "../../../../src/scenarios/secrets/ssh/certificate-inspection.js";
import { describeEachTransport, type TransportHarness } from "../../../support/transports.js";
import { CA_KEYS, FINGERPRINTS, PUBLIC_KEYS } from "../../../simulator/secrets/ssh/fixtures.js";
import { listCertificate } from "../../../simulator/secrets/ssh/ssh-keygen.js";
import { startSsh } from "./ssh-harness.js";

const T0_SECONDS = Date.UTC(2024, 0, 1) / 1000;
const iso = (seconds: number): string => new Date(seconds * 1000).toISOString().slice(0, 19);

/**
 * The same start for every test that generates the default (RSA 4096) CA key, so that the seeded
 * prime search finds the same primes and runs once per test file (the search is memoised).
 */
async function startWithSigners(t: TransportHarness) {
  const started = await startSsh(t, "ssh-ca");
  const { secrets } = started;
  secrets.createPolicy("sign-both", { "ssh/sign/*": ["create", "update"] });
  secrets.createPolicy("sign-create", { "ssh/sign/*": ["create"] });
  secrets.createPolicy("sign-update", { "ssh/sign/*": ["update"] });
  const tokens = {
    both: secrets.createToken({ policies: ["sign-both"], displayName: "token-alice" }).token,
    create: secrets.createToken({ policies: ["sign-create"], displayName: "token-bob" }).token,
    update: secrets.createToken({ policies: ["sign-update"], displayName: "token-carol" }).token,
  };
  started.ssh.addCaRole("ca-role", { defaultUser: "ubuntu", allowedUsers: "*", defaultExtensions: { "permit-pty": "" }, ttl: "30m" });
  return { ...started, tokens };
}

describeEachTransport("secrets ssh: certificate authority", (t) => {
  it("generates the default CA (RSA 4096 bits) and serves its public key as text/plain without a token", async () => {
    const { send, call } = await startWithSigners(t);
    const configured = await send("POST", "/ssh/config/ca", { body: {} });
    expect(configured.status).toBe(200);
    const publicKey: string = configured.body.data.public_key;
    expect(publicKey).toMatch(/^ssh-rsa AAAA[0-9A-Za-z+/=]+\n$/);
    expect(Buffer.from(publicKey.split(" ")[1] ?? "", "base64").length).toBeGreaterThan(512);
    expect((await send("GET", "/ssh/config/ca")).body.data).toEqual({ public_key: publicKey });
    const served = await call("GET", "/ssh/public_key", { token: null });
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await served.text()).toBe(publicKey);
  });

  it("generates ECDSA and Ed25519 CAs as key_type and key_bits say", async () => {
    const { send } = await startSsh(t);
    for (const [body, prefix] of [
      [{ key_type: "ec", key_bits: 384 }, "ecdsa-sha2-nistp384 "],
      [{ key_type: "ecdsa-sha2-nistp521" }, "ecdsa-sha2-nistp521 "],
      [{ key_type: "ed25519", generate_signing_key: true }, "ssh-ed25519 "],
      [{ key_type: "rsa", key_bits: 2048 }, "ssh-rsa "],
    ] as const) {
      const answer = await send("POST", "/ssh/config/ca", { body });
      expect(answer.status).toBe(200);
      expect(answer.body.data.public_key.startsWith(prefix)).toBe(true);
      expect((await send("DELETE", "/ssh/config/ca")).status).toBe(204);
    }
  });

  it("imports a key pair with 204, overwrites it with a later configuration, and forgets it on delete", async () => {
    const { send, call } = await startSsh(t);
    expect(await send("GET", "/ssh/config/ca")).toEqual({ status: 400, body: { errors: ["keys haven't been configured yet"] } });
    expect(await send("GET", "/ssh/public_key", { token: null })).toEqual({ status: 404, body: { errors: [] } });
    const pair = { private_key: CA_KEYS.ED25519_OPENSSH.privateKey, public_key: CA_KEYS.ED25519_OPENSSH.publicKey };
    expect(await send("POST", "/ssh/config/ca", { body: { ...pair, generate_signing_key: false } })).toEqual({ status: 204, body: undefined });
    expect(await (await call("GET", "/ssh/public_key", { token: null })).text()).toBe(CA_KEYS.ED25519_OPENSSH.publicKey);
    const replaced = await send("POST", "/ssh/config/ca", { body: { key_type: "ed25519" } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.public_key).not.toBe(CA_KEYS.ED25519_OPENSSH.publicKey);
    expect(await (await call("GET", "/ssh/public_key", { token: null })).text()).toBe(replaced.body.data.public_key);
    expect((await send("DELETE", "/ssh/config/ca")).status).toBe(204);
    expect((await send("GET", "/ssh/config/ca")).status).toBe(400);
  });

  it("refuses bad CA configurations with the real service's answers", async () => {
    const { send } = await startSsh(t);
    const pair = CA_KEYS.RSA_PKCS1;
    expect(await send("POST", "/ssh/config/ca", { body: { generate_signing_key: true, private_key: pair.privateKey } })).toEqual({
      status: 400,
      body: { errors: ["public_key and private_key must not be set when generate_signing_key is set to true"] },
    });
    expect(await send("POST", "/ssh/config/ca", { body: { public_key: pair.publicKey } })).toEqual({
      status: 400,
      body: { errors: ["only one of public_key and private_key set; both must be set to use, or both must be blank to auto-generate"] },
    });
    expect(await send("POST", "/ssh/config/ca", { body: { private_key: CA_KEYS.ENCRYPTED.privateKey, public_key: pair.publicKey } })).toEqual({
      status: 400,
      body: { errors: ["Unable to parse private_key as an SSH private key: ssh: this private key is passphrase protected"] },
    });
    expect(await send("POST", "/ssh/config/ca", { body: { key_type: "dsa" } })).toEqual({ status: 500, body: { errors: ["unknown ssh key pair algorithm: dsa"] } });
    expect(await send("POST", "/ssh/config/ca", { body: { key_type: "rsa", key_bits: 1024 } })).toEqual({
      status: 500,
      body: { errors: ["refusing to generate weak rsa key: 1024 bits < 2048 bits"] },
    });
    expect(await send("POST", "/ssh/config/ca", { body: { generate_signing_key: "sometimes" } })).toMatchObject({ status: 400 });
    expect((await send("GET", "/ssh/config/ca")).status).toBe(400);
  });
});

describeEachTransport("secrets ssh: signing", (t) => {
  it("signs a user key into a certificate ssh-keygen reads, with the role's principal, key id, validity and extensions", async () => {
    const { send, tokens } = await startWithSigners(t);
    await send("POST", "/ssh/config/ca", { body: { private_key: CA_KEYS.RSA_PKCS1.privateKey, public_key: CA_KEYS.RSA_PKCS1.publicKey } });
    const signed = await send("POST", "/ssh/sign/ca-role", { body: { public_key: PUBLIC_KEYS.ED25519 }, token: tokens.both });
    expect(signed.status).toBe(200);
    expect(Object.keys(signed.body.data).sort()).toEqual(["serial_number", "signed_key"]);
    const { serial_number: serial, signed_key: signedKey } = signed.body.data;
    expect(serial).toMatch(/^[0-9a-f]+$/);
    expect(signedKey).toMatch(/^ssh-ed25519-cert-v01@openssh\.com AAAA[0-9A-Za-z+/=]+\n$/);
    const listing = listCertificate(signedKey);
    expect(listing.type).toBe("ssh-ed25519-cert-v01@openssh.com user certificate");
    expect(listing.publicKey).toBe(`ED25519-CERT ${FINGERPRINTS.ED25519}`);
    expect(listing.signingCa).toBe(`RSA ${sshFingerprint(CA_KEYS.RSA_PKCS1.publicKey)} (using rsa-sha2-256)`);
    expect(listing.keyId).toBe("token-alice");
    expect(listing.serial).toBe(BigInt(`0x${serial}`).toString());
    expect(listing.valid).toBe(`from ${iso(T0_SECONDS - 30)} to ${iso(T0_SECONDS + 1800)}`);
    expect(listing.principals).toEqual(["ubuntu"]);
    expect(listing.criticalOptions).toEqual([]);
    expect(listing.extensions).toEqual(["permit-pty"]);
    expect(inspectCertificate(signedKey)).toMatchObject({ serial, signatureValid: true, signatureAlgorithm: "rsa-sha2-256" });
  });

  it("signs host certificates for allowed domains with ttl, critical options and extensions from the request", async () => {
    const { send, ssh } = await startSsh(t);
    ssh.generateCa({ keyType: "ec", keyBits: 256 });
    ssh.addCaRole("hosts", {
      allowUserCertificates: false,
      allowHostCertificates: true,
      allowedDomains: "example.com",
      allowSubdomains: true,
      allowedExtensions: "*",
      allowUserKeyIds: true,
      maxTtl: "2h",
      notBeforeDuration: "1m",
    });
    const body = {
      public_key: PUBLIC_KEYS.HOST_RSA,
      cert_type: "host",
      valid_principals: "web.example.com,db.example.com",
      ttl: "90m",
      key_id: "web-host",
      critical_options: { "source-address": "10.0.0.0/8" },
      extensions: { "custom@example.com": "on" },
    };
    const signed = await send("POST", "/ssh/sign/hosts", { body });
    expect(signed.status).toBe(200);
    const listing = listCertificate(signed.body.data.signed_key);
    expect(listing.type).toBe("ssh-rsa-cert-v01@openssh.com host certificate");
    expect(listing.signingCa).toMatch(/^ECDSA SHA256:.* \(using ecdsa-sha2-nistp256\)$/);
    expect(listing.keyId).toBe("web-host");
    expect(listing.principals).toEqual(["db.example.com", "web.example.com"]);
    expect(listing.valid).toBe(`from ${iso(T0_SECONDS - 60)} to ${iso(T0_SECONDS + 5400)}`);
    expect(listing.criticalOptions).toEqual(["source-address 10.0.0.0/8"]);
    expect(inspectCertificate(signed.body.data.signed_key).extensions).toEqual({ "custom@example.com": "on" });
    expect(await send("POST", "/ssh/sign/hosts", { body: { ...body, ttl: "3h" } })).toEqual({ status: 400, body: { errors: ["ttl is larger than maximum allowed 7200"] } });
    expect(await send("POST", "/ssh/sign/hosts", { body: { ...body, valid_principals: "example.com" } })).toEqual({
      status: 400,
      body: { errors: ["example.com is not a valid value for valid_principals"] },
    });
  });

  it("applies key_id_format, bare domains, default critical options, the max_ttl clamp and the default user at signing time", async () => {
    const { send, ssh, secrets } = await startSsh(t);
    ssh.generateCa({ keyType: "ed25519" });
    secrets.createPolicy("signer", { "ssh/sign/*": ["create", "update"] });
    const token = secrets.createToken({ policies: ["signer"], displayName: "ci-bot" }).token;
    ssh.addCaRole("formatted", {
      keyIdFormat: "{{role_name}}/{{token_display_name}}/{{public_key_hash}}",
      defaultCriticalOptions: { "force-command": "/usr/bin/deploy" },
      maxTtl: "10m",
      notBeforeDuration: "0s",
    });
    const formatted = listCertificate((await send("POST", "/ssh/sign/formatted", { body: { public_key: PUBLIC_KEYS.ED25519 }, token })).body.data.signed_key);
    const keyBlob = Buffer.from(PUBLIC_KEYS.ED25519.split(" ")[1] ?? "", "base64");
    expect(formatted.keyId).toBe(`formatted/ci-bot/${createHash("sha256").update(keyBlob).digest("hex")}`);
    expect(formatted.criticalOptions).toEqual(["force-command /usr/bin/deploy"]);
    // no ttl asked: the system default (768h) is clamped to max_ttl; asked above it: refused
    expect(formatted.valid).toBe(`from ${iso(T0_SECONDS)} to ${iso(T0_SECONDS + 600)}`);
    expect((await send("POST", "/ssh/sign/formatted", { body: { public_key: PUBLIC_KEYS.ED25519, ttl: "11m" } })).body).toEqual({ errors: ["ttl is larger than maximum allowed 600"] });

    ssh.addCaRole("bare", { allowUserCertificates: false, allowHostCertificates: true, allowedDomains: "example.com", allowBareDomains: true });
    const host = (role: string, principals: string) => send("POST", `/ssh/sign/${role}`, { body: { public_key: PUBLIC_KEYS.HOST_RSA, cert_type: "host", valid_principals: principals } });
    expect(listCertificate((await host("bare", "example.com")).body.data.signed_key).principals).toEqual(["example.com"]);
    expect((await host("bare", "www.example.com")).body).toEqual({ errors: ["www.example.com is not a valid value for valid_principals"] });
    ssh.addCaRole("any-host", { allowUserCertificates: false, allowHostCertificates: true, allowedDomains: "*" });
    expect(listCertificate((await host("any-host", "db.internal")).body.data.signed_key).type).toBe("ssh-rsa-cert-v01@openssh.com host certificate");

    // the default user is the principal only if allowed_users lets it be one
    ssh.addCaRole("default-outside", { defaultUser: "ubuntu", allowedUsers: "deploy" });
    expect((await send("POST", "/ssh/sign/default-outside", { body: { public_key: PUBLIC_KEYS.ED25519 } })).body).toEqual({ errors: ["ubuntu is not a valid value for valid_principals"] });
    ssh.addCaRole("default-inside", { defaultUser: "deploy", allowedUsers: "deploy,ops" });
    expect(listCertificate((await send("POST", "/ssh/sign/default-inside", { body: { public_key: PUBLIC_KEYS.ED25519 } })).body.data.signed_key).principals).toEqual(["deploy"]);
  });

  it("refuses requests outside the role with 400 and the real messages", async () => {
    const { send, ssh } = await startSsh(t);
    ssh.generateCa({ keyType: "ed25519" });
    ssh.addCaRole("ca-role", { allowedUsers: "ubuntu,deploy", allowedUserKeyLengths: { rsa: [2048], ed25519: [0] }, allowedCriticalOptions: "force-command" });
    const refuse = async (body: Record<string, unknown>, role = "ca-role") => (await send("POST", `/ssh/sign/${role}`, { body: { public_key: PUBLIC_KEYS.ED25519, ...body } })).body;
    expect(await refuse({}, "ghost")).toEqual({ errors: ["Unknown role: ghost"] });
    expect(await refuse({ public_key: "" })).toEqual({ errors: ["missing public_key"] });
    expect(await refuse({ public_key: PUBLIC_KEYS.RSA_1024 })).toEqual({ errors: ["public_key failed to meet the key requirements: key is of an invalid size: 1024"] });
    expect(await refuse({ public_key: PUBLIC_KEYS.P256 })).toEqual({ errors: ["public_key failed to meet the key requirements: key of type ecdsa is not allowed"] });
    expect(await refuse({ key_id: "me" })).toEqual({ errors: ["setting key_id is not allowed by role"] });
    expect(await refuse({ cert_type: "host" })).toEqual({ errors: ["cert_type 'host' is not allowed by role"] });
    expect(await refuse({ valid_principals: "root" })).toEqual({ errors: ["root is not a valid value for valid_principals"] });
    expect(await refuse({ critical_options: { "source-address": "1.2.3.4/32" } })).toEqual({ errors: ["critical options not on allowed list: [source-address]"] });
    expect(await refuse({ extensions: { "permit-pty": "" } })).toEqual({ errors: ["extensions [permit-pty] are not on allowed list"] });
    expect(await refuse({ ttl: "soon" })).toMatchObject({ errors: [expect.stringContaining('error converting input "soon" for field "ttl"')] });
    expect((await send("POST", "/ssh/sign/ca-role", { body: { public_key: PUBLIC_KEYS.RSA_2048, valid_principals: "deploy" } })).status).toBe(200);
  });

  it("needs both create and update once the CA key exists", async () => {
    const { send, tokens, ssh } = await startWithSigners(t);
    ssh.importCa(CA_KEYS.EC_SEC1.privateKey, CA_KEYS.EC_SEC1.publicKey);
    const body = { public_key: PUBLIC_KEYS.P384 };
    expect((await send("POST", "/ssh/sign/ca-role", { body, token: tokens.both })).status).toBe(200);
    expect(await send("POST", "/ssh/sign/ca-role", { body, token: tokens.update })).toEqual({ status: 403, body: { errors: ["permission denied"] } });
    expect(await send("POST", "/ssh/sign/ca-role", { body, token: tokens.create })).toEqual({ status: 403, body: { errors: ["permission denied"] } });
  });

  it("with update only and no CA key answers an error; with create it creates a default CA key and signs", async () => {
    const { send, tokens, ssh } = await startWithSigners(t);
    const body = { public_key: PUBLIC_KEYS.RSA_2048 };
    const refused = await send("POST", "/ssh/sign/ca-role", { body, token: tokens.update });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatch(/^failed to read CA private key/);
    expect(ssh.caPublicKey()).toBeUndefined();
    const signed = await send("POST", "/ssh/sign/ca-role", { body, token: tokens.create });
    expect(signed.status).toBe(200);
    const caKey = ssh.caPublicKey() ?? "";
    expect(caKey).toMatch(/^ssh-rsa /);
    const listing = listCertificate(signed.body.data.signed_key);
    expect(listing.signingCa).toBe(`RSA ${sshFingerprint(caKey)} (using rsa-sha2-256)`);
    expect(listing.keyId).toBe("token-bob");
    expect((await send("POST", "/ssh/sign/ca-role", { body, token: tokens.create })).status).toBe(403);
  });

  it("signs with the role's algorithm_signer and answers 500 when it does not fit the CA key, as the real service", async () => {
    const { send, ssh } = await startSsh(t);
    ssh.importCa(CA_KEYS.RSA_PKCS8.privateKey, CA_KEYS.RSA_PKCS8.publicKey);
    ssh.addCaRole("sha512", { algorithmSigner: "rsa-sha2-512" });
    ssh.addCaRole("sha1", { algorithmSigner: "ssh-rsa" });
    const sign = async (role: string) => (await send("POST", `/ssh/sign/${role}`, { body: { public_key: PUBLIC_KEYS.ED25519 } })).body;
    expect(listCertificate((await sign("sha512")).data.signed_key).signingCa).toMatch(/\(using rsa-sha2-512\)$/);
    expect(inspectCertificate((await sign("sha1")).data.signed_key)).toMatchObject({ signatureAlgorithm: "ssh-rsa", signatureValid: true });
    expect((await send("POST", "/ssh/roles/sha512", { body: { key_type: "ca", allow_user_certificates: true, algorithm_signer: "md5" } })).status).toBe(500);
    await send("DELETE", "/ssh/config/ca");
    ssh.generateCa({ keyType: "ed25519" });
    expect(await sign("sha512")).toEqual({ errors: ["failed to generate signed SSH key: sign error: ssh: unsupported signature algorithm rsa-sha2-512 for key type ssh-ed25519"] });
  });

  it("answers byte-identical certificates for the same seed and calls, ECDSA CA included", async () => {
    const run = async () => {
      const { call, doubles, ssh } = await startSsh(t, "deterministic");
      ssh.generateCa({ keyType: "ec", keyBits: 521 });
      ssh.addCaRole("ca-role");
      const text = await (await call("POST", "/ssh/sign/ca-role", { body: { public_key: PUBLIC_KEYS.P256 } })).text();
      await doubles.close();
      return text;
    };
    const first = await run();
    expect(await run()).toBe(first);
    expect(listCertificate(JSON.parse(first).data.signed_key).signingCa).toMatch(/using ecdsa-sha2-nistp521/);
  });

  it("answers byte-identical CA keys and certificates for RSA and Ed25519 CAs generated over HTTP, and others for another seed", async () => {
    const run = async (seed: string) => {
      const { call, doubles, ssh } = await startSsh(t, seed);
      ssh.addCaRole("ca-role");
      const texts: string[] = [];
      for (const body of [{ key_type: "rsa", key_bits: 2048 }, { key_type: "ed25519" }]) {
        texts.push(await (await call("POST", "/ssh/config/ca", { body })).text());
        texts.push(await (await call("POST", "/ssh/sign/ca-role", { body: { public_key: PUBLIC_KEYS.ED25519, ttl: "1h" } })).text());
        await call("DELETE", "/ssh/config/ca");
      }
      await doubles.close();
      return texts;
    };
    const first = await run("same-seed");
    expect(await run("same-seed")).toEqual(first);
    expect(listCertificate(JSON.parse(first[1] ?? "").data.signed_key).signingCa).toMatch(/^RSA SHA256:\S+ \(using rsa-sha2-256\)$/);
    expect(listCertificate(JSON.parse(first[3] ?? "").data.signed_key).signingCa).toMatch(/^ED25519 SHA256:\S+ \(using ssh-ed25519\)$/);
    const other = await run("other-seed");
    expect(JSON.parse(other[0] ?? "").data.public_key).not.toBe(JSON.parse(first[0] ?? "").data.public_key);
    expect(JSON.parse(other[2] ?? "").data.public_key).not.toBe(JSON.parse(first[2] ?? "").data.public_key);
  });
});
