import { describe, expect, it } from "vitest";
import { isDomainError } from "../../../../src/simulator/kernel/errors.js";
import { caKeySpec, configureCa, deleteCa, readCaPublicKey, servedPublicKey } from "../../../../src/simulator/secrets/ssh/certificate-authority.js";
import { parsePublicKeyText } from "../../../../src/simulator/secrets/ssh/public-key.js";
import { testMount } from "./engine-context.js";
import { CA_KEYS } from "./fixtures.js";

function detail(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (isDomainError(error)) return `${error.code}: ${error.detail}`;
    throw error;
  }
  throw new Error("expected a domain error");
}

describe("SSH certificate authority configuration", () => {
  it("generates each key type from the seeded ids and answers the public key", () => {
    for (const [keyType, keyBits, algorithm, bits] of [
      ["ed25519", undefined, "ssh-ed25519", 256],
      ["ssh-ed25519", undefined, "ssh-ed25519", 256],
      ["ec", undefined, "ecdsa-sha2-nistp256", 256],
      ["ec", 384, "ecdsa-sha2-nistp384", 384],
      ["ec", 521, "ecdsa-sha2-nistp521", 521],
      ["ecdsa-sha2-nistp384", 0, "ecdsa-sha2-nistp384", 384],
      ["rsa", 2048, "ssh-rsa", 2048],
    ] as const) {
      const { ctx, mount } = testMount(`ca-${keyType}`);
      const result = configureCa(ctx, { keyType, keyBits });
      expect(result.generated).toBe(true);
      expect(result.publicKey.endsWith("\n")).toBe(true);
      const key = parsePublicKeyText(result.publicKey.trim());
      expect([key.algorithm, key.bits]).toEqual([algorithm, bits]);
      expect(readCaPublicKey(mount)).toBe(result.publicKey);
      expect(servedPublicKey(mount)).toBe(result.publicKey);
      expect(configureCa(testMount(`ca-${keyType}`).ctx, { keyType, keyBits }).publicKey).toBe(result.publicKey);
    }
  });

  it("resolves the default key type to RSA 4096 bits", () => {
    expect(caKeySpec(undefined, undefined)).toEqual({ kind: "rsa", bits: 4096 });
    expect(caKeySpec("ssh-rsa", 0)).toEqual({ kind: "rsa", bits: 4096 });
    expect(caKeySpec("rsa", 3072)).toEqual({ kind: "rsa", bits: 3072 });
  });

  it("imports a key pair as given, answering no public key", () => {
    const { ctx, mount } = testMount();
    const result = configureCa(ctx, { privateKey: CA_KEYS.EC_SEC1.privateKey, publicKey: CA_KEYS.EC_SEC1.publicKey });
    expect(result).toEqual({ generated: false, publicKey: CA_KEYS.EC_SEC1.publicKey });
    expect(servedPublicKey(mount)).toBe(CA_KEYS.EC_SEC1.publicKey);
    expect(mount.ca?.privateKey.startsWith("-----BEGIN PRIVATE KEY-----")).toBe(true);
  });

  it("refuses contradictory, partial and unparseable configurations, and overwrites an existing CA", () => {
    const { ctx, mount } = testMount();
    const pair = CA_KEYS.ED25519_OPENSSH;
    expect(detail(() => configureCa(ctx, { generateSigningKey: true, publicKey: pair.publicKey }))).toBe(
      "invalid: public_key and private_key must not be set when generate_signing_key is set to true",
    );
    expect(detail(() => configureCa(ctx, { generateSigningKey: false }))).toBe("invalid: missing public_key");
    expect(detail(() => configureCa(ctx, { generateSigningKey: false, publicKey: pair.publicKey }))).toBe("invalid: missing private_key");
    expect(detail(() => configureCa(ctx, { privateKey: pair.privateKey }))).toBe(
      "invalid: only one of public_key and private_key set; both must be set to use, or both must be blank to auto-generate",
    );
    expect(detail(() => configureCa(ctx, { privateKey: "junk", publicKey: pair.publicKey }))).toBe("invalid: Unable to parse private_key as an SSH private key: ssh: no key found");
    expect(detail(() => configureCa(ctx, { privateKey: CA_KEYS.ENCRYPTED.privateKey, publicKey: pair.publicKey }))).toBe(
      "invalid: Unable to parse private_key as an SSH private key: ssh: this private key is passphrase protected",
    );
    expect(detail(() => configureCa(ctx, { privateKey: pair.privateKey, publicKey: "ssh-ed25519 @@@" }))).toMatch(/^invalid: Unable to parse public_key as an SSH public key: illegal base64/);
    expect(detail(() => configureCa(ctx, { keyType: "dsa" }))).toBe("internal: unknown ssh key pair algorithm: dsa");
    expect(detail(() => configureCa(ctx, { keyType: "ec", keyBits: 123 }))).toBe("internal: unknown ECDSA key pair algorithm: ec");
    expect(detail(() => configureCa(ctx, { keyType: "rsa", keyBits: 1024 }))).toBe("internal: refusing to generate weak rsa key: 1024 bits < 2048 bits");
    expect(detail(() => configureCa(ctx, { keyType: "rsa", keyBits: 16384 }))).toBe("invalid: key_bits above 8192 are not supported by infra-doubles");
    expect(detail(() => readCaPublicKey(mount))).toBe("invalid: keys haven't been configured yet");
    expect(detail(() => servedPublicKey(mount))).toBe("not_found: ");
    expect(mount.ca).toBeNull();
    configureCa(ctx, { privateKey: pair.privateKey, publicKey: pair.publicKey });
    const replaced = configureCa(ctx, { keyType: "ec" });
    expect(servedPublicKey(mount)).toBe(replaced.publicKey);
    expect(replaced.publicKey.startsWith("ecdsa-sha2-nistp256 ")).toBe(true);
    deleteCa(ctx);
    expect(mount.ca).toBeNull();
    expect(configureCa(ctx, { keyType: "ed25519" }).generated).toBe(true);
  });
});
