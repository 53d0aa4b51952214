/**
 * Test helper: runs the real `ssh-keygen -L -f` on a certificate and reads its listing. OpenSSH
 * verifies the CA signature while loading a certificate, so a listing also proves the signature.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What `ssh-keygen -L` printed, field by field. */
export interface CertificateListing {
  /** e.g. `ssh-ed25519-cert-v01@openssh.com user certificate`. */
  readonly type: string;
  /** e.g. `ED25519-CERT SHA256:...`. */
  readonly publicKey: string;
  /** e.g. `RSA SHA256:... (using rsa-sha2-256)`. */
  readonly signingCa: string;
  readonly keyId: string;
  readonly serial: string;
  /** e.g. `from 2024-01-01T00:00:00 to 2024-01-01T01:00:00` (UTC). */
  readonly valid: string;
  readonly principals: readonly string[];
  readonly criticalOptions: readonly string[];
  readonly extensions: readonly string[];
  readonly raw: string;
}

/**
 * Lists a certificate with `ssh-keygen -L` (TZ=UTC).
 * @throws when ssh-keygen refuses the certificate (bad format or bad signature).
 */
export function listCertificate(certificate: string): CertificateListing {
  const dir = mkdtempSync(join(tmpdir(), "infra-doubles-ssh-"));
  try {
    const file = join(dir, "key-cert.pub");
    writeFileSync(file, certificate);
    const raw = execFileSync("ssh-keygen", ["-L", "-f", file], { encoding: "utf8", env: { ...process.env, TZ: "UTC" }, stdio: ["ignore", "pipe", "pipe"] });
    return parseListing(raw);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether `ssh-keygen -L` accepts the certificate. */
export function sshKeygenAccepts(certificate: string): boolean {
  try {
    listCertificate(certificate);
    return true;
  } catch {
    return false;
  }
}

function parseListing(raw: string): CertificateListing {
  const lines = raw.split("\n").slice(1);
  const field = (label: string): string => {
    const line = lines.find((l) => l.trim().startsWith(`${label}:`));
    return line === undefined ? "" : line.trim().slice(label.length + 1).trim();
  };
  const block = (label: string): string[] => {
    const start = lines.findIndex((l) => l.trim().startsWith(`${label}:`));
    if (start < 0) return [];
    if (field(label) === "(none)") return [];
    const out: string[] = [];
    for (let i = start + 1; i < lines.length; i++) {
      const line = lines[i] ?? "";
      if (!line.startsWith("                ")) break;
      out.push(line.trim());
    }
    return out;
  };
  return {
    type: field("Type"),
    publicKey: field("Public key"),
    signingCa: field("Signing CA"),
    keyId: field("Key ID").replace(/^"|"$/g, ""),
    serial: field("Serial"),
    valid: field("Valid"),
    principals: block("Principals"),
    criticalOptions: block("Critical Options"),
    extensions: block("Extensions"),
    raw,
  };
}
