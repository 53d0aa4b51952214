/**
 * Example: an SSH one-time-password helper, written the way a team would write it against the real
 * secrets service with global `fetch`. The client side asks for an OTP for a host; the host side
 * (like an SSH helper in a PAM module) checks its connection with the echo request, then verifies
 * the password the user typed - which works exactly once.
 */

/** Where the secrets service is and who is asking. */
export interface SecretsConnection {
  /** e.g. `https://secrets.example.com/v1`. */
  readonly baseUrl: string;
  /** `X-Secrets-Token` (not needed to verify). */
  readonly token?: string;
  /** Mount path of the SSH engine (default `ssh`). */
  readonly mount?: string;
}

/** An OTP as the client gets it. */
export interface IssuedOtp {
  readonly otp: string;
  readonly username: string;
  readonly ip: string;
  readonly port: number;
  readonly leaseId: string;
  /** Seconds the password lives. */
  readonly leaseSeconds: number;
}

/** The host's verdict on a typed password. */
export type OtpVerdict = { readonly ok: true; readonly username: string; readonly ip: string } | { readonly ok: false; readonly reason: string };

/** The parts of the service's JSON answers this helper reads. */
interface Answer {
  readonly errors?: string[];
  readonly lease_id?: string;
  readonly lease_duration?: number;
  readonly data?: { key?: string; username?: string; ip?: string; port?: number; message?: string };
}

async function post(connection: SecretsConnection, path: string, body: unknown, authenticated: boolean): Promise<{ status: number; json: Answer }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (authenticated && connection.token !== undefined) headers["x-secrets-token"] = connection.token;
  const response = await fetch(`${connection.baseUrl}/${connection.mount ?? "ssh"}/${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Answer };
}

/**
 * Client side: asks role `role` for a one-time password to log into `ip`.
 * @throws {Error} with the service's error messages when refused.
 */
export async function requestOtp(connection: SecretsConnection, role: string, ip: string, username?: string): Promise<IssuedOtp> {
  const { status, json } = await post(connection, `creds/${encodeURIComponent(role)}`, { ip, ...(username ? { username } : {}) }, true);
  if (status !== 200) throw new Error(`OTP refused (${status}): ${(json.errors ?? []).join("; ")}`);
  const data = json.data ?? {};
  return { otp: data.key ?? "", username: data.username ?? "", ip: data.ip ?? "", port: data.port ?? 22, leaseId: json.lease_id ?? "", leaseSeconds: json.lease_duration ?? 0 };
}

/** Host side: checks that the secrets service answers the echo request. */
export async function checkConnection(connection: SecretsConnection): Promise<boolean> {
  const { status, json } = await post(connection, "verify", { otp: "verify-echo-request" }, false);
  return status === 200 && json.data?.message === "verify-echo-response";
}

/** Host side: verifies a typed password for `expectedUser` (no token needed). */
export async function verifyOtp(connection: SecretsConnection, otp: string, expectedUser: string): Promise<OtpVerdict> {
  const { status, json } = await post(connection, "verify", { otp }, false);
  if (status !== 200) return { ok: false, reason: (json.errors ?? []).join("; ") || `status ${status}` };
  const { username = "", ip = "" } = json.data ?? {};
  if (username !== expectedUser) return { ok: false, reason: `OTP is for ${username}, not ${expectedUser}` };
  return { ok: true, username, ip };
}
