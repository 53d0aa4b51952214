/**
 * Example: a job that gets a user's SSH key signed by the secrets service's CA and checks the
 * certificate with the real `ssh-keygen` before handing it out: signed by the service's CA, for the
 * expected principals, and valid now.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SecretsConnection } from "./ssh-otp-helper.js";

/** What the job produced. */
export interface SignedUserKey {
  readonly serial: string;
  /** `...-cert-v01@openssh.com AAAA...` (save as `id_ed25519-cert.pub`). */
  readonly certificate: string;
}

/** The job's verdict on a certificate. */
export type CertificateCheck = { readonly ok: true; readonly principals: string[]; readonly validUntil: Date } | { readonly ok: false; readonly reason: string };

/**
 * Asks role `role` to sign `publicKey` (an `authorized_keys` line).
 * @throws {Error} with the service's error messages when refused.
 */
export async function signUserKey(
  connection: SecretsConnection,
  role: string,
  publicKey: string,
  options: { principals?: readonly string[]; ttl?: string } = {},
): Promise<SignedUserKey> {
  const body = {
    public_key: publicKey,
    ...(options.principals ? { valid_principals: options.principals.join(",") } : {}),
    ...(options.ttl ? { ttl: options.ttl } : {}),
  };
  const response = await fetch(`${connection.baseUrl}/${connection.mount ?? "ssh"}/sign/${encodeURIComponent(role)}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-secrets-token": connection.token ?? "" },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { errors?: string[]; data?: { serial_number: string; signed_key: string } };
  if (response.status !== 200 || json.data === undefined) throw new Error(`signing refused (${response.status}): ${(json.errors ?? []).join("; ")}`);
  return { serial: json.data.serial_number, certificate: json.data.signed_key };
}

/** The CA public key servers trust (`TrustedUserCAKeys`); no token needed. */
export async function fetchCaPublicKey(connection: SecretsConnection): Promise<string> {
  const response = await fetch(`${connection.baseUrl}/${connection.mount ?? "ssh"}/public_key`);
  if (response.status !== 200) throw new Error(`no CA public key (${response.status})`);
  return response.text();
}

/**
 * Checks a certificate with `ssh-keygen`: signed by `caPublicKey`, for exactly `principals`, and
 * valid at `now` (ms since the epoch).
 */
export function checkCertificate(certificate: string, caPublicKey: string, principals: readonly string[], now: number = Date.now()): CertificateCheck {
  const dir = mkdtempSync(join(tmpdir(), "sign-job-"));
  try {
    writeFileSync(join(dir, "id-cert.pub"), certificate);
    writeFileSync(join(dir, "ca.pub"), caPublicKey);
    const env = { ...process.env, TZ: "UTC" };
    let listing: string;
    try {
      listing = execFileSync("ssh-keygen", ["-L", "-f", join(dir, "id-cert.pub")], { encoding: "utf8", env, stdio: ["ignore", "pipe", "pipe"] });
    } catch {
      return { ok: false, reason: "ssh-keygen cannot read the certificate" };
    }
    const caFingerprint = execFileSync("ssh-keygen", ["-l", "-E", "sha256", "-f", join(dir, "ca.pub")], { encoding: "utf8" }).split(" ")[1] ?? "";
    const signingCa = /Signing CA: \S+ (\S+)/.exec(listing)?.[1];
    if (signingCa !== caFingerprint) return { ok: false, reason: `signed by ${signingCa ?? "?"}, not by the CA ${caFingerprint}` };
    const found = /Principals:\s*\n((?:\s{16}\S.*\n)*)/.exec(listing)?.[1]?.split("\n").map((l) => l.trim()).filter(Boolean) ?? [];
    if (found.join(",") !== [...principals].sort().join(",")) return { ok: false, reason: `principals are ${found.join(",")}` };
    const valid = /Valid: from (\S+) to (\S+)/.exec(listing);
    if (valid === null) return { ok: false, reason: "no validity window" };
    const from = Date.parse(`${valid[1]}Z`);
    const to = Date.parse(`${valid[2]}Z`);
    if (now < from) return { ok: false, reason: "not valid yet" };
    if (now >= to) return { ok: false, reason: "expired" };
    return { ok: true, principals: found, validUntil: new Date(to) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
