/**
 * Temporal contracts: rules over the simulated times the journal carries (when a lease was renewed
 * against its TTL, whether an expired or revoked token was sent again, whether a retry waited for
 * `Retry-After`, whether retries back off, how fast a GET is polled). Each contract is a streaming
 * checker fed one journal entry at a time ({@link createContract}), so `infra-doubles soak` checks
 * them as requests arrive, and the matchers ({@link temporalMatchers}) feed it the journal whole.
 *
 * What a contract knows comes from the journal only: a lease's or token's TTL from the response
 * that issued or renewed it (`lease_duration`, `auth.lease_duration`, `ExpirationTime`), its end
 * from the response that revoked it, an OTP's use from the `POST /ssh/verify` that accepted it
 * (docs/decisions/journal.md, "Temporal contracts"). A lease or token issued before the journal's
 * window is not judged.
 *
 * Framework-free: `infra-doubles/vitest` registers the matchers on Vitest's `expect`; Jest users
 * call `expect.extend(temporalMatchers)`.
 */
import { UsageError } from "../simulator/kernel/errors.js";
import { clockDurationMs } from "../simulator/kernel/clock.js";
import { isoMillis } from "../simulator/kernel/time.js";
import { RequestJournal, type JournalEntry } from "../interceptors/journal.js";
import type { JournalSource, MatcherContext, MatcherResult } from "./journal-matchers.js";

/** What `toRenewBefore` judges: secrets leases (`"lease"`) or secrets tokens (`"token"`). */
export type RenewKind = "lease" | "token";

/** The temporal contracts, by the names `soak --contracts` takes. */
export type ContractSpec =
  | { readonly rule: "renew-before"; readonly kind: RenewKind; readonly fraction: number }
  | { readonly rule: "never-use-expired" }
  | { readonly rule: "honor-retry-after" }
  | { readonly rule: "back-off"; readonly factor: number }
  | { readonly rule: "poll-no-faster-than"; readonly intervalMs: number };

/** One broken rule: what was broken, and the requests that broke it (oldest first). */
export interface Violation {
  /** The contract's name as `soak --contracts` writes it (`renew-before=lease:0.667`). */
  readonly contract: string;
  /** The rule in words, with the figures (`lease ... renewed 45m after its issue, past 2/3 of its 1h TTL (40m)`). */
  readonly rule: string;
  /** Simulated time of the offending request, ms since the epoch. */
  readonly at: number;
  /** The requests involved (the earlier one that set the rule, then the offending one). */
  readonly entries: readonly JournalEntry[];
}

/** A contract checked entry by entry (entries in journal order). */
export interface Contract {
  /** Its name as `soak --contracts` writes it. */
  readonly name: string;
  /** Feeds one entry; returns the violations it makes (usually none). */
  observe(entry: JournalEntry): Violation[];
}

/** When the client sent the request: the answer's time minus the simulated time it took. */
function sentAt(entry: JournalEntry): number {
  return entry.at - entry.durationMs;
}

function ok(entry: JournalEntry): boolean {
  return entry.status >= 200 && entry.status < 300;
}

function jsonOf(body: { json(): unknown }): Record<string, unknown> | undefined {
  const value = body.json();
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A duration in words: `40m`, `1h30m`, `2d3h`, `1.5s`. */
export function humanDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [["d", 86_400], ["h", 3600], ["m", 60]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0 || parts.length === 0) parts.push(ms < 60_000 && ms % 1000 !== 0 ? `${(ms / 1000).toFixed(1)}s` : `${rest}s`);
  return parts.join("");
}

function fractionText(fraction: number): string {
  for (const d of [2, 3, 4, 5, 6, 8, 10]) {
    const n = Math.round(fraction * d);
    if (n > 0 && Math.abs(n / d - fraction) < 1e-9) return `${n}/${d}`;
  }
  return String(fraction);
}

/** The path of a request's URL, without the service's API prefix guesswork (the route is shown when known). */
function pathOf(entry: JournalEntry): string {
  try {
    return new URL(entry.url).pathname;
  } catch {
    return entry.url;
  }
}

/** The key of "the same request": method and full URL. */
function sameRequest(entry: JournalEntry): string {
  return `${entry.method.toUpperCase()} ${entry.url}`;
}

// ---------------------------------------------------------------------------------------------
// Credentials seen in the journal

/** The secrets token a request carries (`X-Secrets-Token` or its alias `X-Vault-Token`). */
function secretsTokenOf(entry: JournalEntry): string | undefined {
  return str(entry.headers["x-secrets-token"]) ?? str(entry.headers["x-vault-token"]);
}

/** The access-control token a request carries (`X-Acl-Token`, `Authorization: Bearer`, `?token=`). */
function aclTokenOf(entry: JournalEntry): string | undefined {
  const header = str(entry.headers["x-acl-token"]);
  if (header !== undefined) return header;
  const bearer = /^Bearer\s+(\S+)$/i.exec(entry.headers.authorization ?? "")?.[1];
  if (bearer !== undefined) return bearer;
  try {
    return str(new URL(entry.url).searchParams.get("token") ?? undefined);
  } catch {
    return undefined;
  }
}

/** The token a request presents, whichever service it went to. */
function presentedToken(entry: JournalEntry): string | undefined {
  if (entry.service === "secrets") return secretsTokenOf(entry);
  if (entry.service === "accessControl") return aclTokenOf(entry);
  return secretsTokenOf(entry) ?? aclTokenOf(entry);
}

/** A lease id a `/sys/leases/...` request names (body `lease_id`, or the path after the verb). */
function leaseIdOf(entry: JournalEntry): string | undefined {
  const body = jsonOf(entry.requestBody);
  const fromBody = str(body?.lease_id);
  if (fromBody !== undefined) return fromBody;
  const match = /\/sys\/leases\/(?:renew|revoke|lookup)\/(.+)$/.exec(pathOf(entry));
  return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
}

function isLeaseRoute(entry: JournalEntry, verb: "renew" | "revoke" | "lookup"): boolean {
  return entry.route !== undefined && (entry.route === `/sys/leases/${verb}` || entry.route === `/sys/leases/${verb}/*lease_id`);
}

/** A credential with a lifetime, as the journal's responses told it. */
interface Lifetime {
  readonly id: string;
  /** What it is, in words: `lease cloud/creds/deploy/abc`, `token hvs.…` (masked). */
  readonly label: string;
  /** When its current lifetime started (issue or last renewal), ms. */
  since: number;
  /** Its TTL from `since`, ms (0: none). */
  ttlMs: number;
  /** The entry that issued or last renewed it. */
  source: JournalEntry;
  /** Ended by revocation (`revoke`, logout, an accepted OTP): the entry that ended it. */
  ended?: JournalEntry;
  /** Renewed at least once. */
  renewed: boolean;
  /** Already reported as used after its end (one violation per credential). */
  reported?: boolean;
}

function mask(secret: string): string {
  return secret.length <= 8 ? "***" : `${secret.slice(0, 4)}…${secret.slice(-4)}`;
}

const TOKEN_RENEW = new Set(["/auth/token/renew-self", "/auth/token/renew", "/auth/token/renew-accessor"]);

/** Leases issued in responses: `lease_id` + `lease_duration` > 0 at the top of a 2xx JSON body. */
function issuedLease(entry: JournalEntry): { id: string; ttlMs: number } | undefined {
  if (!ok(entry) || entry.service !== "secrets" || isLeaseRoute(entry, "renew") || isLeaseRoute(entry, "lookup")) return undefined;
  const body = jsonOf(entry.responseBody);
  const id = str(body?.lease_id);
  const ttl = num(body?.lease_duration);
  return id === undefined || ttl === undefined || ttl <= 0 ? undefined : { id, ttlMs: ttl * 1000 };
}

/** A secrets token issued in a response: `auth.client_token` with `auth.lease_duration` > 0. */
function issuedSecretsToken(entry: JournalEntry): { token: string; accessor?: string; ttlMs: number } | undefined {
  if (!ok(entry) || entry.service !== "secrets" || TOKEN_RENEW.has(entry.route ?? "")) return undefined;
  const auth = jsonOf({ json: () => jsonOf(entry.responseBody)?.auth });
  const token = str(auth?.client_token);
  const ttl = num(auth?.lease_duration);
  if (token === undefined || ttl === undefined) return undefined;
  const accessor = str(auth?.accessor);
  return { token, ...(accessor === undefined ? {} : { accessor }), ttlMs: ttl * 1000 };
}

const TOKEN_REVOKE = new Set(["/auth/token/revoke-self", "/auth/token/revoke", "/auth/token/revoke-accessor", "/auth/token/revoke-orphan"]);

/**
 * Keeps the leases and tokens the journal shows issued, renewed and revoked, and tells which
 * credential a request uses.
 */
class Credentials {
  readonly leases = new Map<string, Lifetime>();
  readonly tokens = new Map<string, Lifetime>();
  private readonly accessors = new Map<string, string>();

  /** The token (secret) a token-route request names: its header, body `token`, or body `accessor`. */
  tokenNamed(entry: JournalEntry): string | undefined {
    const body = jsonOf(entry.requestBody);
    if (entry.route === "/auth/token/renew-self" || entry.route === "/auth/token/revoke-self") return secretsTokenOf(entry);
    const accessor = str(body?.accessor);
    if (accessor !== undefined) return this.accessors.get(accessor);
    return str(body?.token);
  }

  /** Updates what is known after `entry` (call after judging it). */
  learn(entry: JournalEntry): void {
    const at = sentAt(entry);
    if (entry.service === "secrets" && entry.route !== undefined && ok(entry)) {
      if (isLeaseRoute(entry, "renew")) {
        const lease = this.leases.get(leaseIdOf(entry) ?? "");
        const ttl = num(jsonOf(entry.responseBody)?.lease_duration);
        if (lease !== undefined && ttl !== undefined) Object.assign(lease, { since: at, ttlMs: ttl * 1000, source: entry, renewed: true });
      } else if (isLeaseRoute(entry, "revoke")) {
        const lease = this.leases.get(leaseIdOf(entry) ?? "");
        if (lease !== undefined && lease.ended === undefined) lease.ended = entry;
      } else if (TOKEN_RENEW.has(entry.route)) {
        const token = this.tokens.get(this.tokenNamed(entry) ?? "");
        const ttl = num(jsonOf({ json: () => jsonOf(entry.responseBody)?.auth })?.lease_duration);
        if (token !== undefined && ttl !== undefined) Object.assign(token, { since: at, ttlMs: ttl * 1000, source: entry, renewed: true });
      } else if (TOKEN_REVOKE.has(entry.route)) {
        const token = this.tokens.get(this.tokenNamed(entry) ?? "");
        if (token !== undefined && token.ended === undefined) token.ended = entry;
      } else if (entry.route === "/ssh/verify") {
        const otp = this.tokens.get(str(jsonOf(entry.requestBody)?.otp) ?? "");
        if (otp !== undefined && otp.ended === undefined) otp.ended = entry;
      }
    }
    const lease = issuedLease(entry);
    if (lease !== undefined) {
      this.leases.set(lease.id, { id: lease.id, label: `lease ${lease.id}`, since: at, ttlMs: lease.ttlMs, source: entry, renewed: false });
      // An OTP is a credential with the lease's lifetime, used once (POST /ssh/verify).
      const data = jsonOf({ json: () => jsonOf(entry.responseBody)?.data });
      const otp = data?.key_type === "otp" ? str(data.key) : undefined;
      if (otp !== undefined) this.tokens.set(otp, { id: otp, label: `OTP ${mask(otp)}`, since: at, ttlMs: lease.ttlMs, source: entry, renewed: false });
    }
    const token = issuedSecretsToken(entry);
    if (token !== undefined) {
      this.tokens.set(token.token, { id: token.token, label: `token ${mask(token.token)}`, since: at, ttlMs: token.ttlMs, source: entry, renewed: false });
      if (token.accessor !== undefined) this.accessors.set(token.accessor, token.token);
    }
    if (entry.service === "accessControl" && ok(entry)) this.learnAcl(entry, at);
  }

  private learnAcl(entry: JournalEntry, at: number): void {
    const body = jsonOf(entry.responseBody);
    const secret = str(body?.SecretID);
    const accessor = str(body?.AccessorID);
    if (entry.method.toUpperCase() === "DELETE" && entry.route === "/acl/token/:AccessorID") {
      const id = this.accessors.get(decodeURIComponent(pathOf(entry).split("/").pop() ?? ""));
      const token = this.tokens.get(id ?? "");
      if (token !== undefined && token.ended === undefined) token.ended = entry;
      return;
    }
    if (entry.route === "/acl/logout") {
      const token = this.tokens.get(aclTokenOf(entry) ?? "");
      if (token !== undefined && token.ended === undefined) token.ended = entry;
      return;
    }
    if (secret === undefined || this.tokens.has(secret)) return;
    const expires = str(body?.ExpirationTime);
    const expiresAt = expires === undefined ? undefined : Date.parse(expires);
    if (accessor !== undefined) this.accessors.set(accessor, secret);
    if (expiresAt === undefined || !Number.isFinite(expiresAt)) return;
    this.tokens.set(secret, { id: secret, label: `ACL token ${accessor ?? mask(secret)}`, since: at, ttlMs: Math.max(0, expiresAt - at), source: entry, renewed: false });
  }
}

function expiresAt(life: Lifetime): number {
  return life.since + life.ttlMs;
}

// ---------------------------------------------------------------------------------------------
// The contracts

class RenewBefore implements Contract {
  readonly name: string;
  private readonly credentials = new Credentials();
  constructor(
    private readonly kind: RenewKind,
    private readonly fraction: number,
  ) {
    this.name = `renew-before=${kind}:${fractionText(fraction)}`;
  }

  observe(entry: JournalEntry): Violation[] {
    const violations: Violation[] = [];
    const at = sentAt(entry);
    const table = this.kind === "lease" ? this.credentials.leases : this.credentials.tokens;
    let target: Lifetime | undefined;
    if (entry.service === "secrets" && entry.route !== undefined) {
      if (this.kind === "lease" && isLeaseRoute(entry, "renew")) target = table.get(leaseIdOf(entry) ?? "");
      if (this.kind === "token" && TOKEN_RENEW.has(entry.route)) target = table.get(this.credentials.tokenNamed(entry) ?? "");
    }
    if (target !== undefined && target.ended === undefined && target.ttlMs > 0) {
      const elapsed = at - target.since;
      const limit = target.ttlMs * this.fraction;
      if (at > expiresAt(target)) {
        violations.push({
          contract: this.name,
          at,
          rule: `${target.label} expired at ${isoMillis(expiresAt(target))} (its ${humanDuration(target.ttlMs)} TTL from ${isoMillis(target.since)}) and was renewed only ${humanDuration(at - expiresAt(target))} later: renew before ${fractionText(this.fraction)} of the TTL (${humanDuration(limit)})`,
          entries: [target.source, entry],
        });
      } else if (elapsed > limit) {
        violations.push({
          contract: this.name,
          at,
          rule: `${target.label} renewed ${humanDuration(elapsed)} into its ${humanDuration(target.ttlMs)} TTL, past ${fractionText(this.fraction)} of it (${humanDuration(limit)})`,
          entries: [target.source, entry],
        });
      }
    } else if (this.kind === "token") {
      // A token used after it expired while the code kept it: a secrets token it renewed before,
      // or an access-control token with an ExpirationTime (they cannot be renewed: the code
      // should have replaced it).
      const used = table.get(presentedToken(entry) ?? "");
      const acl = used?.label.startsWith("ACL") === true;
      if (used !== undefined && (used.renewed || acl) && used.ended === undefined && used.ttlMs > 0 && at > expiresAt(used) && used.reported !== true) {
        used.reported = true;
        violations.push({
          contract: this.name,
          at,
          rule: `${used.label} expired at ${isoMillis(expiresAt(used))} without being ${acl ? "replaced" : "renewed"}, and was still used ${humanDuration(at - expiresAt(used))} later`,
          entries: [used.source, entry],
        });
      }
    }
    if (this.kind === "lease" && entry.service === "secrets" && isLeaseRoute(entry, "lookup")) {
      const used = table.get(leaseIdOf(entry) ?? "");
      if (used !== undefined && used.ended === undefined && at > expiresAt(used) && used.reported !== true) {
        used.reported = true;
        violations.push({ contract: this.name, at, rule: `${used.label} expired at ${isoMillis(expiresAt(used))} without being renewed, and was still looked up ${humanDuration(at - expiresAt(used))} later`, entries: [used.source, entry] });
      }
    }
    this.credentials.learn(entry);
    return violations;
  }
}

class NeverUseExpired implements Contract {
  readonly name = "never-use-expired";
  private readonly credentials = new Credentials();

  observe(entry: JournalEntry): Violation[] {
    const at = sentAt(entry);
    const violations: Violation[] = [];
    const used: Lifetime[] = [];
    const presented = this.credentials.tokens.get(presentedToken(entry) ?? "");
    if (presented !== undefined) used.push(presented);
    if (entry.route !== undefined && entry.service === "secrets") {
      if (TOKEN_RENEW.has(entry.route) || TOKEN_REVOKE.has(entry.route)) {
        const named = this.credentials.tokens.get(this.credentials.tokenNamed(entry) ?? "");
        if (named !== undefined && named !== presented) used.push(named);
      }
      if (entry.route === "/ssh/verify") {
        const otp = this.credentials.tokens.get(str(jsonOf(entry.requestBody)?.otp) ?? "");
        if (otp !== undefined) used.push(otp);
      }
    }
    for (const life of used) {
      // Revoking a revoked token again is harmless; sending it anywhere else is not.
      if (life.ended !== undefined && !(entry.route !== undefined && TOKEN_REVOKE.has(entry.route))) {
        violations.push({ contract: this.name, at, rule: `${life.label} was sent ${humanDuration(at - sentAt(life.ended))} after it was ${life.label.startsWith("OTP") ? "used" : "revoked"} (at ${isoMillis(sentAt(life.ended))})`, entries: [life.ended, entry] });
      } else if (life.ttlMs > 0 && at > expiresAt(life)) {
        violations.push({ contract: this.name, at, rule: `${life.label} was sent ${humanDuration(at - expiresAt(life))} after it expired (at ${isoMillis(expiresAt(life))}, ${humanDuration(life.ttlMs)} after ${life.renewed ? "its last renewal" : "it was issued"})`, entries: [life.source, entry] });
      }
    }
    this.credentials.learn(entry);
    return violations;
  }
}

/** A `Retry-After` value (seconds, or an HTTP date) as ms after `at`; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, at: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isFinite(date) ? Math.max(0, date - at) : undefined;
}

class HonorRetryAfter implements Contract {
  readonly name = "honor-retry-after";
  private readonly waits = new Map<string, { until: number; entry: JournalEntry; ms: number }>();

  observe(entry: JournalEntry): Violation[] {
    const key = sameRequest(entry);
    const at = sentAt(entry);
    const violations: Violation[] = [];
    const wait = this.waits.get(key);
    if (wait !== undefined) {
      this.waits.delete(key);
      if (at < wait.until) {
        violations.push({ contract: this.name, at, rule: `retried ${humanDuration(at - sentAt(wait.entry))} after a ${wait.entry.status} whose Retry-After asked for ${humanDuration(wait.ms)} (not before ${isoMillis(wait.until)})`, entries: [wait.entry, entry] });
      }
    }
    if (entry.status === 429 || entry.status === 503) {
      const ms = retryAfterMs(entry.responseHeaders["retry-after"] ?? entry.responseHeaders["Retry-After"], entry.at);
      if (ms !== undefined) this.waits.set(key, { until: entry.at + ms, entry, ms });
    }
    return violations;
  }
}

function failed(entry: JournalEntry): boolean {
  return entry.status === 0 || entry.status === 429 || entry.status >= 500;
}

class BackOff implements Contract {
  readonly name: string;
  private readonly chains = new Map<string, { last: JournalEntry; gap?: number }>();
  constructor(private readonly factor: number) {
    this.name = `back-off=${factor}`;
  }

  observe(entry: JournalEntry): Violation[] {
    const key = sameRequest(entry);
    const chain = this.chains.get(key);
    const violations: Violation[] = [];
    if (chain !== undefined) {
      const gap = sentAt(entry) - sentAt(chain.last);
      if (chain.gap !== undefined && gap < this.factor * chain.gap) {
        violations.push({
          contract: this.name,
          at: sentAt(entry),
          rule: `retry ${humanDuration(gap)} after the previous attempt, less than ${this.factor} x the gap before it (${humanDuration(chain.gap)}, so at least ${humanDuration(this.factor * chain.gap)})`,
          entries: [chain.last, entry],
        });
      }
      if (failed(entry)) this.chains.set(key, { last: entry, gap });
      else this.chains.delete(key);
    } else if (failed(entry)) {
      this.chains.set(key, { last: entry });
    }
    return violations;
  }
}

class PollNoFasterThan implements Contract {
  readonly name: string;
  private readonly last = new Map<string, JournalEntry>();
  constructor(private readonly intervalMs: number) {
    this.name = `poll-no-faster-than=${humanDuration(intervalMs)}`;
  }

  observe(entry: JournalEntry): Violation[] {
    if (entry.method.toUpperCase() !== "GET") return [];
    const key = sameRequest(entry);
    const previous = this.last.get(key);
    this.last.set(key, entry);
    if (previous === undefined) return [];
    const gap = sentAt(entry) - sentAt(previous);
    if (gap >= this.intervalMs) return [];
    return [{ contract: this.name, at: sentAt(entry), rule: `polled ${humanDuration(gap)} after the previous GET of the same URL, faster than once every ${humanDuration(this.intervalMs)}`, entries: [previous, entry] }];
  }
}

/**
 * A fresh streaming checker of one contract.
 * @throws {UsageError} for a fraction outside (0, 1], a factor below 1, an interval that is not a
 *   duration above zero.
 * @example
 * const contract = createContract({ rule: "renew-before", kind: "lease", fraction: 2 / 3 });
 * for (const entry of doubles.journal) for (const v of contract.observe(entry)) console.log(v.rule);
 */
export function createContract(spec: ContractSpec): Contract {
  switch (spec.rule) {
    case "renew-before":
      if (spec.kind !== "lease" && spec.kind !== "token") throw new UsageError(`renew-before: kind must be "lease" or "token", not ${JSON.stringify(spec.kind)}`);
      if (!(spec.fraction > 0 && spec.fraction <= 1)) throw new UsageError(`renew-before: the fraction of the TTL must be above 0 and at most 1, not ${String(spec.fraction)}`);
      return new RenewBefore(spec.kind, spec.fraction);
    case "never-use-expired":
      return new NeverUseExpired();
    case "honor-retry-after":
      return new HonorRetryAfter();
    case "back-off":
      if (!(typeof spec.factor === "number" && spec.factor >= 1)) throw new UsageError(`back-off: factor must be a number of at least 1, not ${String(spec.factor)}`);
      return new BackOff(spec.factor);
    case "poll-no-faster-than":
      if (!(spec.intervalMs > 0)) throw new UsageError(`poll-no-faster-than: the interval must be above zero, not ${String(spec.intervalMs)}`);
      return new PollNoFasterThan(spec.intervalMs);
    default:
      throw new UsageError(`unknown temporal contract ${JSON.stringify((spec as { rule?: unknown }).rule)}`);
  }
}

/** The contract names `soak --contracts` takes, for messages. */
export const CONTRACT_NAMES = ["renew-before=lease:F", "renew-before=token:F", "never-use-expired", "honor-retry-after", "back-off=FACTOR", "poll-no-faster-than=DURATION"] as const;

/**
 * Reads one contract as `soak --contracts` writes it: `renew-before=lease:2/3`,
 * `renew-before=token:0.5`, `never-use-expired`, `honor-retry-after`, `back-off=2`,
 * `poll-no-faster-than=5s`.
 * @throws {UsageError} naming the forms it takes.
 * @example parseContract("renew-before=lease:2/3") // { rule: "renew-before", kind: "lease", fraction: 0.666... }
 */
export function parseContract(text: string): ContractSpec {
  const [rule = "", value] = text.trim().split("=", 2) as [string, string | undefined];
  const refuse = (why: string): never => {
    throw new UsageError(`contract "${text}": ${why} (contracts: ${CONTRACT_NAMES.join(", ")})`);
  };
  const fraction = (f: string): number => {
    const m = /^(\d+(?:\.\d+)?)(?:\/(\d+(?:\.\d+)?))?$/.exec(f.trim());
    const n = m === null ? NaN : Number(m[1]) / (m[2] === undefined ? 1 : Number(m[2]));
    return n > 0 && n <= 1 ? n : refuse("the fraction must be above 0 and at most 1, like 2/3 or 0.5");
  };
  switch (rule) {
    case "renew-before": {
      const [kind = "", f = "2/3"] = (value ?? "").split(":", 2);
      if (kind !== "lease" && kind !== "token") return refuse('renew-before takes "lease" or "token", like renew-before=lease:2/3');
      return { rule, kind, fraction: fraction(f) };
    }
    case "never-use-expired":
    case "honor-retry-after":
      if (value !== undefined) return refuse(`${rule} takes no value`);
      return { rule };
    case "back-off": {
      const factor = Number(value ?? "2");
      return factor >= 1 ? { rule, factor } : refuse("back-off takes a factor of at least 1, like back-off=2");
    }
    case "poll-no-faster-than": {
      let ms = NaN;
      try {
        ms = clockDurationMs(value ?? "");
      } catch {
        // refused below
      }
      return ms > 0 ? { rule, intervalMs: ms } : refuse("poll-no-faster-than takes a duration with units, like poll-no-faster-than=5s");
    }
    default:
      return refuse("unknown contract");
  }
}

/**
 * One violation as the matchers and `soak` print it: the rule, then the requests with their
 * simulated time, ISO and relative to `origin` (the first request seen).
 * @example formatViolation(v, journal.entries[0].at)
 */
export function formatViolation(violation: Violation, origin: number): string {
  const lines = violation.entries.map((entry) => {
    const at = sentAt(entry);
    const offset = at - origin;
    return `  #${entry.seq} ${isoMillis(at)} (+${humanDuration(Math.max(0, offset))}) ${entry.method} ${entry.route ?? pathOf(entry)} -> ${entry.status}`;
  });
  return `${violation.contract}: ${violation.rule}\n${lines.join("\n")}`;
}

/** The matchers, with the types they take (`R` is the framework's return type). */
export interface TemporalMatchers<R = unknown> {
  /**
   * Every lease (`"lease"`) or secrets token (`"token"`) the code renewed was renewed before
   * `fraction` of its TTL had elapsed since its issue or last renewal, and none expired while the
   * code kept using it (a renewal or lookup after its expiry; a renewed token, or an access-control
   * token with an `ExpirationTime`, sent after it).
   * @example expect(doubles).toRenewBefore("lease", 2 / 3);
   */
  toRenewBefore(kind: RenewKind, fraction: number): R;
  /**
   * No request carried a token or OTP after its expiry, its revocation or (an OTP) its use.
   * @example expect(doubles).toNeverUseExpired();
   */
  toNeverUseExpired(): R;
  /**
   * No request was sent again before the `Retry-After` of the 429 or 503 it got had elapsed.
   * @example expect(doubles).toHonorRetryAfter();
   */
  toHonorRetryAfter(): R;
  /**
   * Consecutive retries of a failed request (status 0, 429, 5xx) are spaced by at least
   * `factor` x the gap before.
   * @example expect(doubles).toBackOff({ factor: 2 });
   */
  toBackOff(options: { readonly factor: number }): R;
  /**
   * Two GETs of the same URL are never closer than `interval` (a duration: `"5s"`, or ms).
   * @example expect(doubles).toPollNoFasterThan("5s");
   */
  toPollNoFasterThan(interval: string | number): R;
}

function entriesOf(received: unknown): JournalEntry[] {
  if (received instanceof RequestJournal) return received.entries;
  const journal = (received as { journal?: unknown } | null)?.journal;
  if (typeof received === "object" && received !== null && journal instanceof RequestJournal) return journal.entries;
  throw new UsageError("temporal matchers expect the doubles (createDoubles()) or doubles.journal");
}

/** Runs `contract` over the journal's entries. */
export function checkJournal(source: JournalSource | RequestJournal, contract: Contract): { violations: Violation[]; checked: number; origin: number } {
  const entries = entriesOf(source);
  const violations: Violation[] = [];
  for (const entry of entries) violations.push(...contract.observe(entry));
  return { violations, checked: entries.length, origin: entries[0] === undefined ? 0 : sentAt(entries[0]) };
}

const SHOWN = 5;

function judge(this: MatcherContext, source: unknown, spec: ContractSpec, what: string): MatcherResult {
  const { violations, checked, origin } = checkJournal(source as JournalSource, createContract(spec));
  const pass = violations.length === 0;
  return {
    pass,
    message: () =>
      pass
        ? `expected a request breaking "${what}", but the ${checked} request${checked === 1 ? "" : "s"} in the journal kept it`
        : `expected ${what}, but ${violations.length} request${violations.length === 1 ? "" : "s"} broke it:\n\n` +
          violations
            .slice(0, SHOWN)
            .map((v) => formatViolation(v, origin))
            .join("\n\n") +
          (violations.length > SHOWN ? `\n\n... and ${violations.length - SHOWN} more` : ""),
  };
}

/**
 * The temporal matchers, for `expect.extend(temporalMatchers)` (`infra-doubles/vitest` does it).
 * See {@link TemporalMatchers}.
 * @example
 * import { temporalMatchers } from "infra-doubles";
 * expect.extend(temporalMatchers); // Jest
 * expect(doubles).toRenewBefore("lease", 2 / 3);
 */
export const temporalMatchers = {
  toRenewBefore(this: MatcherContext, source: unknown, kind: RenewKind, fraction: number): MatcherResult {
    const spec = { rule: "renew-before", kind, fraction } as const;
    createContract(spec);
    return judge.call(this, source, spec, `every ${kind} renewed before ${fractionText(fraction)} of its TTL`);
  },
  toNeverUseExpired(this: MatcherContext, source: unknown): MatcherResult {
    return judge.call(this, source, { rule: "never-use-expired" }, "no token or OTP used after its expiry, revocation or use");
  },
  toHonorRetryAfter(this: MatcherContext, source: unknown): MatcherResult {
    return judge.call(this, source, { rule: "honor-retry-after" }, "no retry before the Retry-After of a 429 or 503");
  },
  toBackOff(this: MatcherContext, source: unknown, options: { readonly factor: number }): MatcherResult {
    const factor = (options as { factor?: unknown } | undefined)?.factor;
    if (typeof factor !== "number") throw new UsageError("toBackOff: give { factor }, a number of at least 1");
    createContract({ rule: "back-off", factor });
    return judge.call(this, source, { rule: "back-off", factor }, `retries spaced by at least ${factor} x the previous gap`);
  },
  toPollNoFasterThan(this: MatcherContext, source: unknown, interval: string | number): MatcherResult {
    let intervalMs: number;
    try {
      intervalMs = clockDurationMs(interval);
    } catch {
      throw new UsageError(`toPollNoFasterThan: not a duration: ${JSON.stringify(interval)} (like "5s" or 5000)`);
    }
    createContract({ rule: "poll-no-faster-than", intervalMs });
    return judge.call(this, source, { rule: "poll-no-faster-than", intervalMs }, `GETs of the same URL no closer than ${humanDuration(intervalMs)}`);
  },
};
