/**
 * Reading an OpenSSH certificate in a test: what `ssh-keygen -L` shows (type, key id, serial,
 * principals, validity, options, extensions, fingerprints) plus whether the CA signature checks
 * out, without running `ssh-keygen`.
 *
 * Spec: secrets.md "SSH engine" (`sign` answers `signed_key`).
 */
import { parseCertificate, verifyCertificateSignature } from "../../../simulator/secrets/ssh/certificate.js";
import { fingerprintSha256, parsePublicKeyText } from "../../../simulator/secrets/ssh/public-key.js";

/** A certificate as a test wants to look at it. */
export interface CertificateInspection {
  /** e.g. `ssh-ed25519-cert-v01@openssh.com`. */
  readonly type: string;
  readonly certType: "user" | "host";
  readonly keyId: string;
  /** Lowercase hex, as `sign` answers `serial_number`. */
  readonly serial: string;
  readonly principals: readonly string[];
  /** ms since the epoch. */
  readonly validAfter: number;
  /** ms since the epoch. */
  readonly validBefore: number;
  readonly criticalOptions: Readonly<Record<string, string>>;
  readonly extensions: Readonly<Record<string, string>>;
  /** `SHA256:...` of the certified key, as `ssh-keygen -l` prints it. */
  readonly keyFingerprint: string;
  /** `SHA256:...` of the CA key. */
  readonly caFingerprint: string;
  /** e.g. `rsa-sha2-256`. */
  readonly signatureAlgorithm: string;
  /** Whether the CA signature is valid. */
  readonly signatureValid: boolean;
}

/**
 * Decodes a `signed_key`.
 * @throws {Error} when the text is not an OpenSSH certificate.
 * @example
 * const cert = inspectCertificate(body.data.signed_key);
 * expect(cert.principals).toEqual(["ubuntu"]);
 * expect(cert.signatureValid).toBe(true);
 */
export function inspectCertificate(signedKey: string): CertificateInspection {
  const cert = parseCertificate(signedKey);
  return {
    type: cert.certAlgorithm,
    certType: cert.certType,
    keyId: cert.keyId,
    serial: cert.serial.toString(16),
    principals: [...cert.principals],
    validAfter: Number(cert.validAfter) * 1000,
    validBefore: Number(cert.validBefore) * 1000,
    criticalOptions: { ...cert.criticalOptions },
    extensions: { ...cert.extensions },
    keyFingerprint: fingerprintSha256(cert.publicKey),
    caFingerprint: fingerprintSha256(cert.signatureKey),
    signatureAlgorithm: cert.signatureAlgorithm,
    signatureValid: verifyCertificateSignature(cert),
  };
}

/**
 * The `SHA256:...` fingerprint of a public key line, as `ssh-keygen -l` prints it.
 * @example sshFingerprint("ssh-ed25519 AAAA... me@host") // "SHA256:..."
 */
export function sshFingerprint(publicKey: string): string {
  return fingerprintSha256(parsePublicKeyText(publicKey.trim()));
}
