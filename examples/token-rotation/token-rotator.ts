/**
 * Example client: keeps a service's access-control token fresh. It creates a token for the
 * service's identity with a limited lifetime, hands out its secret, and replaces it (deleting the
 * old one) once less than `renewBeforeMs` of its life is left. Written against the access-control
 * HTTP API with the global `fetch`, as an application would be.
 */

/** Options of {@link TokenRotator}. */
export interface TokenRotatorOptions {
  /** The access-control base URL, ending in `/v1`. */
  readonly baseUrl: string;
  /** A secret allowed to create and delete tokens (`acl:write`). */
  readonly managementToken: string;
  /** The service the tokens are for (becomes the token's service identity). */
  readonly serviceName: string;
  /** Token lifetime as a duration string (default `1h`; the service accepts 1m to 24h). */
  readonly ttl?: string;
  /** Rotate when less than this much life is left, ms (default 10 minutes). */
  readonly renewBeforeMs?: number;
}

/** The token currently handed out. */
export interface ServiceToken {
  readonly accessorId: string;
  readonly secretId: string;
  /** ms since the epoch. */
  readonly expiresAt: number;
}

/** Rotates a service token before it expires. */
export class TokenRotator {
  private current: ServiceToken | undefined;
  private readonly renewBeforeMs: number;

  constructor(private readonly options: TokenRotatorOptions) {
    this.renewBeforeMs = options.renewBeforeMs ?? 10 * 60_000;
  }

  /** The secret to use now: rotated first when missing or about to expire. */
  async secret(): Promise<string> {
    if (this.current === undefined || this.current.expiresAt - Date.now() <= this.renewBeforeMs) await this.rotate();
    return (this.current as ServiceToken).secretId;
  }

  /** The token handed out last, if any. */
  get token(): ServiceToken | undefined {
    return this.current;
  }

  /** Creates a fresh token and deletes the previous one. */
  async rotate(): Promise<ServiceToken> {
    const created = await this.request("PUT", "/acl/token", {
      Description: `${this.options.serviceName} (rotated)`,
      ServiceIdentities: [{ ServiceName: this.options.serviceName }],
      ExpirationTTL: this.options.ttl ?? "1h",
    });
    const body = (await created.json()) as { AccessorID: string; SecretID: string; ExpirationTime: string };
    const previous = this.current;
    this.current = { accessorId: body.AccessorID, secretId: body.SecretID, expiresAt: Date.parse(body.ExpirationTime) };
    if (previous !== undefined) await this.request("DELETE", `/acl/token/${previous.accessorId}`);
    return this.current;
  }

  private async request(method: string, path: string, body?: unknown): Promise<Response> {
    const response = await fetch(`${this.options.baseUrl}${path}`, {
      method,
      headers: { "X-Acl-Token": this.options.managementToken, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`access-control ${method} ${path}: ${response.status} ${await response.text()}`);
    return response;
  }
}
