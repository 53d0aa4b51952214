import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../src/index.js";
import { installSshDefaults } from "../../src/scenarios/secrets/ssh/index.js";
import { checkCertificate, fetchCaPublicKey, signUserKey } from "./sign-user-key-job.js";
import type { SecretsConnection } from "./ssh-otp-helper.js";

const ALICE_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAKiEOtewnW94IR1+JkBTAUJMZFaw3uJB6/rMJPXPKaU alice@laptop";

describe("example: a job that signs a user key and checks the certificate", () => {
  let doubles: Doubles;
  let stop: () => void;
  let connection: SecretsConnection;

  beforeEach(() => {
    doubles = createDoubles({ seed: 11 });
    stop = doubles.intercept().stop;
    installSshDefaults(doubles.secrets, { keyType: "ec" });
    doubles.secrets.createPolicy("ssh-sign", { "ssh/sign/ca-role": ["create", "update"] });
    const { token } = doubles.secrets.createToken({ policies: ["ssh-sign"], displayName: "ci-job" });
    connection = { baseUrl: doubles.baseUrls().secrets!.api!, token };
  });
  afterEach(() => stop());

  it("gets a certificate signed by the service's CA for the asked principals", async () => {
    const signed = await signUserKey(connection, "ca-role", ALICE_KEY, { principals: ["alice", "deploy"], ttl: "1h" });
    expect(signed.certificate).toMatch(/^ssh-ed25519-cert-v01@openssh\.com /);
    const ca = await fetchCaPublicKey(connection);
    const check = checkCertificate(signed.certificate, ca, ["alice", "deploy"], doubles.now());
    expect(check).toEqual({ ok: true, principals: ["alice", "deploy"], validUntil: new Date(doubles.now() + 3_600_000) });
  });

  it("notices the certificate expired after the ttl (time travel) and a certificate from another CA", async () => {
    const signed = await signUserKey(connection, "ca-role", ALICE_KEY, { ttl: "30m" });
    const ca = await fetchCaPublicKey(connection);
    expect(checkCertificate(signed.certificate, ca, ["ubuntu"], doubles.now()).ok).toBe(true);
    doubles.advance("31m");
    expect(checkCertificate(signed.certificate, ca, ["ubuntu"], doubles.now())).toEqual({ ok: false, reason: "expired" });
    const other = createDoubles({ seed: 12 });
    const otherCa = installSshDefaults(other.secrets, { keyType: "ec" }).caPublicKey;
    expect(checkCertificate(signed.certificate, otherCa, ["ubuntu"], doubles.now() - 60_000)).toMatchObject({ ok: false, reason: expect.stringMatching(/^signed by SHA256:/) });
  });

  it("surfaces the refusal when the token's policy grants update but not create", async () => {
    doubles.secrets.createPolicy("ssh-sign", { "ssh/sign/ca-role": ["update"] });
    await expect(signUserKey(connection, "ca-role", ALICE_KEY)).rejects.toThrow("signing refused (403): permission denied");
  });
});
