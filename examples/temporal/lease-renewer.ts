/**
 * Example client: holds cloud credentials from the secrets service and keeps their lease alive.
 * It reads `GET /cloud/creds/<role>` (a renewable lease), then renews it with
 * `PUT /sys/leases/renew` once `renewAt` of its TTL has passed, again and again. Written with the
 * global `fetch`, as an application would be.
 *
 * Its waits are in simulated milliseconds through `sleep`: a test passes one that advances the
 * doubles' clock; under `infra-doubles soak` the entry point (`main.ts`) divides them by
 * `INFRA_DOUBLES_SPEED`.
 */

/** Options of {@link LeaseRenewer}. */
export interface LeaseRenewerOptions {
  /** The secrets service's address, ending in `/v1`. */
  readonly baseUrl: string;
  /** A token allowed to read the role's credentials and renew leases. */
  readonly token: string;
  /** The cloud role to read (default `deploy`, an IAM user with a renewable lease). */
  readonly role?: string;
  /** Renew when this fraction of the lease's TTL has passed (default 0.5). */
  readonly renewAt?: number;
  /** Waits `ms` of (simulated) time. */
  readonly sleep: (ms: number) => Promise<void>;
}

/** The credentials held and their lease. */
export interface HeldLease {
  readonly leaseId: string;
  /** The lease's TTL as last answered, seconds. */
  readonly leaseDuration: number;
  readonly accessKey: string;
}

interface LeaseAnswer {
  readonly lease_id: string;
  readonly lease_duration: number;
  readonly data?: { readonly access_key?: string } | null;
  readonly errors?: readonly string[];
}

/** Reads credentials once and keeps their lease renewed. */
export class LeaseRenewer {
  private held: HeldLease | undefined;
  private readonly role: string;
  private readonly renewAt: number;

  constructor(private readonly options: LeaseRenewerOptions) {
    this.role = options.role ?? "deploy";
    this.renewAt = options.renewAt ?? 0.5;
  }

  /** The credentials held now. */
  get lease(): HeldLease | undefined {
    return this.held;
  }

  private async call(method: string, path: string, body?: unknown): Promise<LeaseAnswer> {
    const response = await fetch(`${this.options.baseUrl}${path}`, {
      method,
      headers: { "X-Vault-Token": this.options.token, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as LeaseAnswer;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${(answer.errors ?? []).join("; ")}`);
    return answer;
  }

  /** Reads the role's credentials (a new lease). */
  async acquire(): Promise<HeldLease> {
    const answer = await this.call("GET", `/cloud/creds/${this.role}`);
    this.held = { leaseId: answer.lease_id, leaseDuration: answer.lease_duration, accessKey: answer.data?.access_key ?? "" };
    return this.held;
  }

  /** Waits until `renewAt` of the TTL, then renews the lease. */
  async renewNext(): Promise<HeldLease> {
    const held = this.held ?? (await this.acquire());
    await this.options.sleep(held.leaseDuration * 1000 * this.renewAt);
    const answer = await this.call("PUT", "/sys/leases/renew", { lease_id: held.leaseId });
    this.held = { ...held, leaseDuration: answer.lease_duration };
    return this.held;
  }

  /** Acquires, then renews `times` times (forever when not given). */
  async run(times = Infinity): Promise<void> {
    if (this.held === undefined) await this.acquire();
    for (let i = 0; i < times; i++) await this.renewNext();
  }
}
