import { describe, expect, it } from "vitest";
import { IdSource } from "../../../../src/simulator/kernel/ids.js";
import {
  certificateText,
  parseCertificate,
  signCertificate,
  verifyCertificateSignature,
  type CertificateInput,
  type RsaSignatureAlgorithm,
} from "../../../../src/simulator/secrets/ssh/certificate.js";
import { generateEcdsa, generateEd25519, generateRsa } from "../../../../src/simulator/secrets/seeded-keys.js";
import { parsePrivateKeyText } from "../../../../src/simulator/secrets/ssh/private-key.js";
import { fingerprintSha256, parsePublicKeyText, publicKeyOf } from "../../../../src/simulator/secrets/ssh/public-key.js";
import { CA_KEYS, FINGERPRINTS, PUBLIC_KEYS } from "./fixtures.js";
import { listCertificate, sshKeygenAccepts } from "./ssh-keygen.js";

const ids = new IdSource("certificates");
const CAS = {
  rsa: generateRsa(ids, 2048),
  p256: generateEcdsa(ids, "nistp256"),
  p384: generateEcdsa(ids, "nistp384"),
  p521: generateEcdsa(ids, "nistp521"),
  ed25519: generateEd25519(ids),
  importedRsa: parsePrivateKeyText(CA_KEYS.RSA_PKCS1.privateKey).key,
};

function input(subject: string, overrides: Partial<CertificateInput> = {}): CertificateInput {
  return {
    nonce: new Uint8Array(32).fill(7),
    publicKey: parsePublicKeyText(subject),
    serial: 0x1234_5678_9abc_def0n,
    certType: "user",
    keyId: "token-alice",
    principals: ["alice", "ops"],
    validAfter: 1_704_067_170n,
    validBefore: 1_704_070_800n,
    criticalOptions: { "source-address": "10.0.0.0/8", "force-command": "/bin/true" },
    extensions: { "permit-pty": "", "permit-agent-forwarding": "" },
    ...overrides,
  };
}

describe("OpenSSH certificates", () => {
  it("are listed by ssh-keygen -L with every field, for every CA key type and signature algorithm", () => {
    const runs: [keyof typeof CAS, RsaSignatureAlgorithm | undefined, string][] = [
      ["rsa", "rsa-sha2-256", "RSA SHA256:"],
      ["rsa", "rsa-sha2-512", "RSA SHA256:"],
      ["rsa", "ssh-rsa", "RSA SHA256:"],
      ["importedRsa", "rsa-sha2-256", "RSA SHA256:"],
      ["p256", undefined, "ECDSA SHA256:"],
      ["p384", undefined, "ECDSA SHA256:"],
      ["p521", undefined, "ECDSA SHA256:"],
      ["ed25519", undefined, "ED25519 SHA256:"],
    ];
    for (const [name, algorithm, caPrefix] of runs) {
      const ca = publicKeyOf(CAS[name]);
      const text = certificateText(signCertificate(input(PUBLIC_KEYS.ED25519), CAS[name], ca, algorithm));
      const listing = listCertificate(text);
      expect(listing.type, name).toBe("ssh-ed25519-cert-v01@openssh.com user certificate");
      expect(listing.publicKey).toBe(`ED25519-CERT ${FINGERPRINTS.ED25519}`);
      const used = algorithm ?? ca.algorithm;
      expect(listing.signingCa).toBe(`${caPrefix}${fingerprintSha256(ca).slice("SHA256:".length)} (using ${used})`);
      expect(listing.keyId).toBe("token-alice");
      expect(listing.serial).toBe(String(0x1234_5678_9abc_def0n));
      expect(listing.valid).toBe("from 2023-12-31T23:59:30 to 2024-01-01T01:00:00");
      expect(listing.principals).toEqual(["alice", "ops"]);
      expect(listing.criticalOptions).toEqual(["force-command /bin/true", "source-address 10.0.0.0/8"]);
      expect(listing.extensions).toEqual(["permit-agent-forwarding", "permit-pty"]);
      expect(verifyCertificateSignature(parseCertificate(text)), name).toBe(true);
    }
  });

  it("certify every subject key type as user or host certificates", () => {
    const ca = CAS.p256;
    for (const [name, type] of [
      ["RSA_2048", "ssh-rsa-cert-v01@openssh.com"],
      ["P256", "ecdsa-sha2-nistp256-cert-v01@openssh.com"],
      ["P384", "ecdsa-sha2-nistp384-cert-v01@openssh.com"],
      ["P521", "ecdsa-sha2-nistp521-cert-v01@openssh.com"],
      ["DSA", "ssh-dss-cert-v01@openssh.com"],
    ] as const) {
      const text = certificateText(signCertificate(input(PUBLIC_KEYS[name], { certType: "host", principals: ["web.example.com"], criticalOptions: {}, extensions: {} }), ca, publicKeyOf(ca)));
      expect(text.startsWith(`${type} `)).toBe(true);
      expect(text.endsWith("\n")).toBe(true);
      if (name !== "DSA") {
        const listing = listCertificate(text);
        expect(listing.type).toBe(`${type} host certificate`);
        expect(listing.principals).toEqual(["web.example.com"]);
        expect(listing.criticalOptions).toEqual([]);
        expect(listing.extensions).toEqual([]);
      }
      expect(verifyCertificateSignature(parseCertificate(text))).toBe(true);
    }
  });

  it("decode back to exactly what was signed", () => {
    const signed = input(PUBLIC_KEYS.P384, { principals: [], criticalOptions: {}, extensions: { "permit-pty": "", "login@example.com": "value" } });
    const parsed = parseCertificate(certificateText(signCertificate(signed, CAS.ed25519, publicKeyOf(CAS.ed25519))));
    expect(parsed.certAlgorithm).toBe("ecdsa-sha2-nistp384-cert-v01@openssh.com");
    expect(Buffer.from(parsed.publicKey.blob).equals(Buffer.from(signed.publicKey.blob))).toBe(true);
    expect({ ...parsed, publicKey: undefined, signatureKey: undefined, signature: undefined, signedBytes: undefined, nonce: Buffer.from(parsed.nonce) }).toMatchObject({
      certType: "user",
      serial: signed.serial,
      keyId: signed.keyId,
      principals: [],
      validAfter: signed.validAfter,
      validBefore: signed.validBefore,
      criticalOptions: {},
      extensions: { "permit-pty": "", "login@example.com": "value" },
      signatureAlgorithm: "ssh-ed25519",
      nonce: Buffer.from(signed.nonce),
    });
  });

  it("are byte-identical for the same inputs, including ECDSA signatures", () => {
    for (const ca of [CAS.p256, CAS.p521, CAS.rsa, CAS.ed25519]) {
      const a = certificateText(signCertificate(input(PUBLIC_KEYS.RSA_2048), ca, publicKeyOf(ca)));
      const b = certificateText(signCertificate(input(PUBLIC_KEYS.RSA_2048), ca, publicKeyOf(ca)));
      expect(a).toBe(b);
    }
  });

  it("with one flipped signature bit are refused by ssh-keygen and by the verifier", () => {
    for (const ca of [CAS.rsa, CAS.p384, CAS.ed25519]) {
      const blob = signCertificate(input(PUBLIC_KEYS.ED25519), ca, publicKeyOf(ca));
      const bad = new Uint8Array(blob);
      bad[bad.length - 3] = (bad[bad.length - 3] ?? 0) ^ 0x01;
      expect(sshKeygenAccepts(certificateText(bad))).toBe(false);
      expect(verifyCertificateSignature(parseCertificate(bad))).toBe(false);
      expect(sshKeygenAccepts(certificateText(blob))).toBe(true);
    }
  });

  it("cannot be signed by a non-RSA CA with an RSA algorithm", () => {
    expect(() => signCertificate(input(PUBLIC_KEYS.ED25519), CAS.ed25519, publicKeyOf(CAS.ed25519), "rsa-sha2-256")).toThrow(
      "ssh: unsupported signature algorithm rsa-sha2-256 for key type ssh-ed25519",
    );
  });
});
