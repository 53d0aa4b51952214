/**
 * Path policies: rules granting capabilities on paths relative to the API base (`ssh/creds/+`,
 * `sys/managed-keys/*`), and the real service's rule for which rule decides a request.
 *
 * - A pattern ending in `*` matches every path with that prefix; `+` matches exactly one segment.
 * - Rules of several policies on the same pattern merge (union of capabilities; `deny` wins).
 * - Among the merged rules that match a path, the most specific decides (the real service's
 *   priority: later first wildcard, then no trailing `*`, then fewer `+`, then longer, then
 *   lexicographically larger).
 * - The `root` policy grants everything.
 *
 * Spec: secrets.md "Authentication"; FIDELITY.md "Secrets" (policies).
 */
import { UsageError } from "../kernel/errors.js";
import type { Capability } from "./engine.js";

/**
 * Every capability a policy rule may grant (spec "Authentication"; FIDELITY.md "Secrets").
 * @example CAPABILITIES.includes("sudo") // true
 */
export const CAPABILITIES: readonly Capability[] = Object.freeze(["create", "read", "update", "delete", "list", "sudo", "deny"]);

/** One rule of a policy: capabilities on a path pattern. */
export interface PolicyRule {
  /** Relative to the API base, without a leading slash, e.g. `ssh/creds/*` or `cloud/+/deploy`. */
  readonly path: string;
  readonly capabilities: readonly Capability[];
}

/** A named policy. */
export interface Policy {
  readonly name: string;
  readonly rules: readonly PolicyRule[];
}

/**
 * The built-in `default` policy every token gets unless told otherwise, with the real default
 * policy's rules for what the fake serves: `update` on `sys/leases/renew` and `sys/leases/lookup`
 * (the lease endpoints real clients call); a token's own token endpoints (`read` on
 * `auth/token/lookup-self`, `update` on `auth/token/renew-self` and `auth/token/revoke-self`),
 * `update` on `sys/capabilities-self`, and on `sys/wrapping/wrap`, `lookup` and `unwrap`
 * (response wrapping).
 * @example capabilitiesOn([DEFAULT_POLICY], "sys/leases/renew").has("update") // true
 * @example capabilitiesOn([DEFAULT_POLICY], "auth/token/lookup-self").has("read") // true
 */
export const DEFAULT_POLICY: Policy = Object.freeze({
  name: "default",
  rules: Object.freeze([
    { path: "sys/leases/renew", capabilities: ["update"] },
    { path: "sys/leases/lookup", capabilities: ["update"] },
    { path: "auth/token/lookup-self", capabilities: ["read"] },
    { path: "auth/token/renew-self", capabilities: ["update"] },
    { path: "auth/token/revoke-self", capabilities: ["update"] },
    { path: "sys/capabilities-self", capabilities: ["update"] },
    // Response wrapping, as the real default policy grants it.
    { path: "sys/wrapping/wrap", capabilities: ["update"] },
    { path: "sys/wrapping/lookup", capabilities: ["update"] },
    { path: "sys/wrapping/unwrap", capabilities: ["update"] },
  ]) as readonly PolicyRule[],
});

/**
 * Builds policy rules from either a map (`{"ssh/creds/*": ["update"]}`), a rule list, or policy
 * text in the real service's HCL form (`path "ssh/*" { capabilities = ["read", "list"] }`).
 * @throws {UsageError} for an unknown capability, a misplaced `*` or unreadable policy text.
 * @example parsePolicyRules('path "ssh/creds/*" { capabilities = ["update"] }')
 */
export function parsePolicyRules(input: string | Readonly<Record<string, readonly string[]>> | readonly PolicyRule[]): PolicyRule[] {
  let rules: { path: string; capabilities: readonly string[] }[];
  if (typeof input === "string") rules = parseHcl(input);
  else if (Array.isArray(input)) rules = (input as readonly PolicyRule[]).map((r) => ({ path: r.path, capabilities: r.capabilities }));
  else rules = Object.entries(input as Record<string, readonly string[]>).map(([path, capabilities]) => ({ path, capabilities }));
  return rules.map((rule) => {
    const path = rule.path.replace(/^\/+/, "");
    const star = path.indexOf("*");
    if (star >= 0 && star !== path.length - 1) throw new UsageError(`policy path "${rule.path}": "*" is only allowed at the end`);
    for (const capability of rule.capabilities) {
      if (!(CAPABILITIES as readonly string[]).includes(capability)) {
        throw new UsageError(`policy path "${rule.path}": unknown capability "${capability}" (use ${CAPABILITIES.join(", ")})`);
      }
    }
    return { path, capabilities: [...new Set(rule.capabilities as Capability[])] };
  });
}

function parseHcl(text: string): { path: string; capabilities: string[] }[] {
  const rules: { path: string; capabilities: string[] }[] = [];
  const stripped = text.replace(/#[^\n]*/g, "").replace(/\/\/[^\n]*/g, "");
  const block = /path\s+"([^"]*)"\s*\{([^}]*)\}/g;
  let consumed = stripped;
  for (const match of stripped.matchAll(block)) {
    const [whole, path, body] = match as unknown as [string, string, string];
    const caps = /capabilities\s*=\s*\[([^\]]*)\]/.exec(body);
    if (!caps) throw new UsageError(`policy path "${path}" has no capabilities list`);
    const capabilities = [...(caps[1] ?? "").matchAll(/"([^"]*)"/g)].map((m) => m[1] ?? "");
    rules.push({ path, capabilities });
    consumed = consumed.replace(whole, "");
  }
  if (consumed.trim() !== "") throw new UsageError(`cannot read policy text near: ${consumed.trim().slice(0, 40)}`);
  return rules;
}

/**
 * Whether `pattern` matches `path` (both relative to the API base, no leading slash): a trailing
 * `*` matches any rest, `+` exactly one segment.
 * @example patternMatches("ssh/+/otp-role", "ssh/creds/otp-role") // true
 */
export function patternMatches(pattern: string, path: string): boolean {
  const glob = pattern.endsWith("*");
  const body = glob ? pattern.slice(0, -1) : pattern;
  if (!body.includes("+")) return glob ? path.startsWith(body) : path === body;
  const want = body.split("/");
  const have = path.split("/");
  for (let i = 0; i < want.length; i++) {
    const segment = want[i] ?? "";
    const actual = have[i];
    if (actual === undefined) return false;
    const last = i === want.length - 1;
    if (segment === "+") {
      if (actual === "" && !(glob && last)) return false;
      continue;
    }
    if (last && glob) {
      if (!actual.startsWith(segment)) return false;
      return true;
    }
    if (segment !== actual) return false;
  }
  return glob ? have.length >= want.length : have.length === want.length;
}

/**
 * Priority order of two matching wildcard patterns (the real service's order): positive when `a`
 * is more specific than `b` (later first wildcard, then no trailing `*`, then fewer `+`, then
 * longer, then lexicographically larger), 0 when equal.
 * @example comparePatterns("ssh/creds/*", "ssh/*") > 0 // true
 */
export function comparePatterns(a: string, b: string): number {
  const firstWildcard = (p: string): number => {
    const indices = [p.indexOf("+"), p.endsWith("*") ? p.length - 1 : -1].filter((i) => i >= 0);
    return indices.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...indices);
  };
  const wa = firstWildcard(a);
  const wb = firstWildcard(b);
  if (wa !== wb) return wa > wb ? 1 : -1;
  const ga = a.endsWith("*");
  const gb = b.endsWith("*");
  if (ga !== gb) return ga ? -1 : 1;
  const pa = a.split("+").length;
  const pb = b.split("+").length;
  if (pa !== pb) return pa < pb ? 1 : -1;
  if (a.length !== b.length) return a.length > b.length ? 1 : -1;
  return a === b ? 0 : a > b ? 1 : -1;
}

/** Rules of several policies merged by pattern: union of capabilities, `deny` alone when any denies. */
export function mergeRules(policies: readonly Policy[]): Map<string, ReadonlySet<Capability>> {
  const merged = new Map<string, Set<Capability>>();
  for (const policy of policies) {
    for (const rule of policy.rules) {
      const set = merged.get(rule.path) ?? new Set<Capability>();
      for (const capability of rule.capabilities) set.add(capability);
      merged.set(rule.path, set);
    }
  }
  for (const [path, set] of merged) if (set.has("deny")) merged.set(path, new Set<Capability>(["deny"]));
  return merged;
}

const ALL: ReadonlySet<Capability> = new Set<Capability>(["create", "read", "update", "delete", "list", "sudo"]);
const NONE: ReadonlySet<Capability> = new Set<Capability>();

/** Whether a pattern has a wildcard (`*` at the end or a `+` segment); others are exact paths. */
function isWildcard(pattern: string): boolean {
  return pattern.endsWith("*") || pattern.includes("+");
}

/** The most specific wildcard pattern matching `path` (the real service's priority), or undefined. */
function bestWildcard(rules: ReadonlyMap<string, ReadonlySet<Capability>>, path: string): ReadonlySet<Capability> | undefined {
  let best: string | undefined;
  for (const pattern of rules.keys()) {
    if (!isWildcard(pattern) || !patternMatches(pattern, path)) continue;
    if (best === undefined || comparePatterns(pattern, best) > 0) best = pattern;
  }
  return best === undefined ? undefined : rules.get(best);
}

/**
 * The capabilities `policies` grant on `path` (relative to the API base, no leading slash).
 * `deny` yields the empty set; the `root` policy yields everything.
 *
 * The deciding rule is found as the real service finds it: an exact rule on the path; for a list
 * path (ending in `/`, as lists are checked), an exact rule on the path without the slash, then the
 * most specific wildcard rule matching the path without the slash (so `path "ssh/roles"` and
 * `path "ssh/+"` grant `LIST ssh/roles`); then the most specific wildcard rule matching the path.
 * @example capabilitiesOn([{ name: "p", rules: [{ path: "ssh/*", capabilities: ["read"] }] }], "ssh/roles/x") // {"read"}
 * @example capabilitiesOn([{ name: "p", rules: [{ path: "ssh/roles", capabilities: ["list"] }] }], "ssh/roles/") // {"list"}
 */
export function capabilitiesOn(policies: readonly Policy[], path: string, isRoot = false): ReadonlySet<Capability> {
  if (isRoot || policies.some((p) => p.name === "root")) return ALL;
  const relative = path.replace(/^\/+/, "");
  const rules = mergeRules(policies);
  const exact = (p: string): ReadonlySet<Capability> | undefined => (isWildcard(p) ? undefined : rules.get(p));
  const listPath = relative.endsWith("/") ? relative.slice(0, -1) : undefined;
  const caps =
    exact(relative) ??
    (listPath === undefined ? undefined : (exact(listPath) ?? bestWildcard(rules, listPath))) ??
    bestWildcard(rules, relative) ??
    NONE;
  return caps.has("deny") ? NONE : caps;
}
