/**
 * What an access-control request brings besides its body: the presented secret (`token` query
 * parameter, then `X-Acl-Token`, then `X-Consul-Token`, then `Authorization: Bearer`) and the
 * namespace hints (`ns`, `X-Acl-Namespace`, then `X-Consul-Namespace`). The `X-Consul-*` names are
 * the real service's, which its clients send; where both names come, the spec's name wins
 * (FIDELITY.md "What real clients send and read"; docs/decisions/clients.md).
 *
 * Spec: access-control.md "Authentication", "Namespace selection (enterprise)".
 */
import type { RequestScope } from "../../simulator/access-control/authorization.js";
import type { SimRequest } from "../http.js";

/** Header carrying the caller's secret. */
export const TOKEN_HEADER = "x-acl-token";
/** Header carrying the namespace (enterprise, step 3 of namespace selection). */
export const NAMESPACE_HEADER = "x-acl-namespace";
/** The real service's name of the token header (the consul client and Consul's Go client send it). */
export const TOKEN_HEADER_ALIAS = "x-consul-token";
/** The real service's name of the namespace header. */
export const NAMESPACE_HEADER_ALIAS = "x-consul-namespace";
/** Header answering the index of a blocking query's result. */
export const INDEX_HEADER = "X-Acl-Index";

/**
 * The query metadata headers the real service sets together on every answer that carries the
 * index: the index under the spec's name and the real one (`X-Consul-Index`, which clients' watches
 * read), the leader as known (one simulated server is always the leader) and the time since last
 * contact with it, in ms (0: the answer comes from the leader).
 * @param index - the result's index (at least 1).
 * @example queryMetaHeaders(7) // { "X-Acl-Index": "7", "X-Consul-Index": "7", "X-Consul-KnownLeader": "true", "X-Consul-LastContact": "0" }
 */
export function queryMetaHeaders(index: number): Record<string, string> {
  return {
    [INDEX_HEADER]: String(index),
    "X-Consul-Index": String(index),
    "X-Consul-KnownLeader": "true",
    "X-Consul-LastContact": "0",
  };
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value === "" ? undefined : value;
}

/** The secret presented by `request`, if any. */
export function presentedSecret(request: SimRequest, query: URLSearchParams): string | undefined {
  const fromQuery = nonEmpty(query.get("token"));
  if (fromQuery !== undefined) return fromQuery;
  const fromHeader = nonEmpty(request.headers[TOKEN_HEADER]) ?? nonEmpty(request.headers[TOKEN_HEADER_ALIAS]);
  if (fromHeader !== undefined) return fromHeader;
  const authorization = request.headers.authorization;
  if (authorization !== undefined && authorization !== "") {
    // The real parser: split on " ", the scheme must be Bearer, the first word of the rest is the token.
    const parts = authorization.split(" ");
    if (parts.length > 1 && parts[0]?.toLowerCase() === "bearer") {
      const value = parts.slice(1).join(" ").trim();
      return nonEmpty(value.split(" ")[0]?.trim());
    }
  }
  return undefined;
}

/** The {@link RequestScope} of `request`. */
export function requestScope(request: SimRequest, query: URLSearchParams): RequestScope {
  const specHeader = nonEmpty(request.headers[NAMESPACE_HEADER]);
  const aliasHeader = nonEmpty(request.headers[NAMESPACE_HEADER_ALIAS]);
  return {
    secret: presentedSecret(request, query),
    namespaceParam: query.get("ns") ?? undefined,
    namespaceHeader: specHeader ?? aliasHeader,
    ...(specHeader === undefined && aliasHeader !== undefined ? { namespaceHeaderName: "X-Consul-Namespace" } : {}),
  };
}
