import { describe, expect, it } from "vitest";
import { authorizedKeyText, fingerprintSha256, parsePublicKeyBlob, parsePublicKeyText, SshKeyError } from "../../../../src/simulator/secrets/ssh/public-key.js";
import { SshWriter } from "../../../../src/simulator/secrets/ssh/ssh-wire.js";
import { FINGERPRINTS, PUBLIC_KEYS } from "./fixtures.js";

describe("OpenSSH public keys", () => {
  it("parses every key type ssh-keygen makes, with its family and size", () => {
    const expected: Record<keyof typeof PUBLIC_KEYS, [string, string, number]> = {
      ED25519: ["ssh-ed25519", "ed25519", 256],
      RSA_2048: ["ssh-rsa", "rsa", 2048],
      RSA_1024: ["ssh-rsa", "rsa", 1024],
      P256: ["ecdsa-sha2-nistp256", "ecdsa", 256],
      P384: ["ecdsa-sha2-nistp384", "ecdsa", 384],
      P521: ["ecdsa-sha2-nistp521", "ecdsa", 521],
      DSA: ["ssh-dss", "dsa", 1024],
      HOST_RSA: ["ssh-rsa", "rsa", 2048],
    };
    for (const [name, text] of Object.entries(PUBLIC_KEYS) as [keyof typeof PUBLIC_KEYS, string][]) {
      const key = parsePublicKeyText(text);
      expect([key.algorithm, key.kind, key.bits], name).toEqual(expected[name]);
      expect(fingerprintSha256(key), name).toBe(FINGERPRINTS[name]);
      expect(`${authorizedKeyText(key)} `, name).toBe(text.slice(0, text.lastIndexOf(" ") + 1));
    }
  });

  it("accepts the bare base64 blob and ignores line breaks inside it, as the real service does", () => {
    const blob = PUBLIC_KEYS.ED25519.split(" ")[1] ?? "";
    expect(parsePublicKeyText(blob).algorithm).toBe("ssh-ed25519");
    expect(parsePublicKeyText(`ssh-ed25519 ${blob.slice(0, 20)}\n${blob.slice(20)}`).algorithm).toBe("ssh-ed25519");
  });

  it("refuses bad base64, unknown algorithms, truncated and padded blobs, and points off the curve", () => {
    expect(() => parsePublicKeyText("ssh-ed25519 not*base64")).toThrow(/illegal base64 data at input byte 3/);
    const unknown = Buffer.from(new SshWriter().string("ssh-foo").string("x").bytes()).toString("base64");
    expect(() => parsePublicKeyText(`ssh-foo ${unknown}`)).toThrow("ssh: unknown key algorithm: ssh-foo");
    const blob = new Uint8Array(Buffer.from(PUBLIC_KEYS.P256.split(" ")[1] ?? "", "base64"));
    expect(() => parsePublicKeyBlob(blob.subarray(0, blob.length - 1))).toThrow(SshKeyError);
    expect(() => parsePublicKeyBlob(new Uint8Array([...blob, 0]))).toThrow("trailing junk");
    const offCurve = new Uint8Array(blob);
    offCurve[offCurve.length - 1] = (offCurve[offCurve.length - 1] ?? 0) ^ 1;
    expect(() => parsePublicKeyBlob(offCurve)).toThrow("invalid ECDSA public key");
    const shortEd = Buffer.from(new SshWriter().string("ssh-ed25519").string(new Uint8Array(31)).bytes()).toString("base64");
    expect(() => parsePublicKeyText(shortEd)).toThrow("invalid size 31");
  });
});
