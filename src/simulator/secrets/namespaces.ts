/**
 * Namespaces (enterprise): `ns1/`, `ns1/ns2/`. Requests pick one with the `X-Secrets-Namespace`
 * header, a path prefix (`/v1/ns1/sys/...`) or both (the header first, then the prefix). The root
 * namespace has path `""` and id `root`.
 *
 * Spec: secrets.md "Managed keys (root namespace only)", "Health (root namespace only)", MFA list
 * ("current and parent namespaces").
 */
import { UsageError } from "../kernel/errors.js";
import type { OperationContext } from "../kernel/simulator.js";
import type { NamespaceRecord, SecretsState } from "./state.js";
import { normalizeNamespace } from "./tokens.js";

/** The root namespace record. */
export const ROOT_NAMESPACE: NamespaceRecord = Object.freeze({ path: "", id: "root" });

/**
 * Creates a namespace (and its missing parents). Namespace ids are 5 base62 characters, like the real service's.
 * @returns the namespace record (existing ones are returned unchanged).
 * @throws {UsageError} for an empty or `root` path.
 */
export function createNamespace(ctx: OperationContext<SecretsState>, path: string): NamespaceRecord {
  const normalized = normalizeNamespace(path);
  if (normalized === "") throw new UsageError("secrets: the root namespace always exists");
  const segments = normalized.slice(0, -1).split("/");
  let record: NamespaceRecord = ROOT_NAMESPACE;
  for (let i = 1; i <= segments.length; i++) {
    const prefix = `${segments.slice(0, i).join("/")}/`;
    const existing = ctx.state.namespaces[prefix];
    if (existing !== undefined) {
      record = existing;
      continue;
    }
    record = { path: prefix, id: ctx.ids.string(5) };
    ctx.state.namespaces[prefix] = record;
  }
  return record;
}

/**
 * Splits a request into its namespace and the path inside it: the header's namespace, then as
 * many leading path segments as name existing child namespaces.
 * @param headerNamespace - the `X-Secrets-Namespace` header (may be absent).
 * @param path - relative to the API base, without a leading slash.
 * @returns the namespace path (`""` for root), or undefined when the header names no namespace.
 */
export function resolveNamespace(state: SecretsState, headerNamespace: string | undefined, path: string): { namespace: string; path: string } | undefined {
  let namespace = normalizeNamespace(headerNamespace ?? "");
  if (namespace !== "" && state.namespaces[namespace] === undefined) return undefined;
  let rest = path.replace(/^\/+/, "");
  for (;;) {
    const slash = rest.indexOf("/");
    if (slash <= 0) break;
    const candidate = `${namespace}${rest.slice(0, slash)}/`;
    if (state.namespaces[candidate] === undefined) break;
    namespace = candidate;
    rest = rest.slice(slash + 1);
  }
  return { namespace, path: rest };
}

/** The namespace record at `path` (`""` = root). */
export function namespaceAt(state: SecretsState, path: string): NamespaceRecord | undefined {
  return path === "" ? ROOT_NAMESPACE : state.namespaces[path];
}

/** Whether `ancestor` is `path` itself or one of its parents. */
export function isSameOrParent(ancestor: string, path: string): boolean {
  return path.startsWith(ancestor);
}
