import { describe, expect, it } from "vitest";
import { parsePrivateKeyText, pkcs8Pem, SshPrivateKeyError } from "../../../../src/simulator/secrets/ssh/private-key.js";
import { authorizedKeyText } from "../../../../src/simulator/secrets/ssh/public-key.js";
import { CA_KEYS, USER_PRIVATE_KEYS, PUBLIC_KEYS } from "./fixtures.js";

const blobOf = (line: string): string => line.split(" ").slice(0, 2).join(" ");

describe("SSH private keys", () => {
  it("imports PKCS#1, SEC1, PKCS#8 and OpenSSH keys and derives the matching public key", () => {
    for (const name of ["RSA_PKCS1", "EC_SEC1", "ED25519_OPENSSH", "RSA_PKCS8", "P384_OPENSSH"] as const) {
      const { publicKey } = parsePrivateKeyText(CA_KEYS[name].privateKey);
      expect(authorizedKeyText(publicKey), name).toBe(blobOf(CA_KEYS[name].publicKey));
    }
    expect(authorizedKeyText(parsePrivateKeyText(USER_PRIVATE_KEYS.ED25519).publicKey)).toBe(blobOf(PUBLIC_KEYS.ED25519));
  });

  it("stores keys as PKCS#8 that parse back to the same key", () => {
    const original = parsePrivateKeyText(CA_KEYS.P384_OPENSSH.privateKey);
    const again = parsePrivateKeyText(pkcs8Pem(original.key));
    expect(authorizedKeyText(again.publicKey)).toBe(authorizedKeyText(original.publicKey));
  });

  it("refuses passphrase-protected keys, non-keys and unsupported PEM types with the Go library's words", () => {
    expect(() => parsePrivateKeyText(CA_KEYS.ENCRYPTED.privateKey)).toThrow("ssh: this private key is passphrase protected");
    expect(() => parsePrivateKeyText("hello")).toThrow("ssh: no key found");
    expect(() => parsePrivateKeyText("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")).toThrow('ssh: unsupported key type "CERTIFICATE"');
    expect(() => parsePrivateKeyText("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n")).toThrow(SshPrivateKeyError);
    expect(() => parsePrivateKeyText("-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n")).toThrow(SshPrivateKeyError);
  });
});
