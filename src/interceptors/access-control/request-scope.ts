/**
 * What an access-control request brings besides its body: the presented secret (`token` query
 * parameter, then `X-Acl-Token`, then `Authorization: Bearer`) and the namespace hints (`ns`,
 * `X-Acl-Namespace`).
 *
 * Spec: access-control.md "Authentication", "Namespace selection (enterprise)".
 */
import type { RequestScope } from "../../simulator/access-control/authorization.js";
import type { SimRequest } from "../http.js";

/** Header carrying the caller's secret. */
export const TOKEN_HEADER = "x-acl-token";
/** Header carrying the namespace (enterprise, step 3 of namespace selection). */
export const NAMESPACE_HEADER = "x-acl-namespace";
/** Header answering the index of a blocking query's result. */
export const INDEX_HEADER = "X-Acl-Index";

function nonEmpty(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value === "" ? undefined : value;
}

/** The secret presented by `request`, if any. */
export function presentedSecret(request: SimRequest, query: URLSearchParams): string | undefined {
  const fromQuery = nonEmpty(query.get("token"));
  if (fromQuery !== undefined) return fromQuery;
  const fromHeader = nonEmpty(request.headers[TOKEN_HEADER]);
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
  return {
    secret: presentedSecret(request, query),
    namespaceParam: query.get("ns") ?? undefined,
    namespaceHeader: nonEmpty(request.headers[NAMESPACE_HEADER]),
  };
}
