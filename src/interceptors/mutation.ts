/**
 * Wire mutations: one deliberate change to how a service answers one route, applied by the
 * handler (`createHandler({ mutation })`) at the one point where faults apply, from the route
 * tables and the service's own error function. Route handlers never know a mutation exists.
 *
 * Used by service mutants (`infra-doubles mutate`, src/scenarios/mutants/). See
 * docs/decisions/mutants.md.
 */
import { DomainError, type DomainErrorCode } from "../simulator/kernel/errors.js";
import type { HttpService, SimRequest, SimResponse } from "./http.js";

/**
 * One change to a route's answers (`endpoint` is the route as the spec writes it, e.g.
 * `POST /runs/:run_id/actions/apply`).
 * - `refusal`: a request the route would accept is answered with the service's own error for
 *   `code` (e.g. `conflict`: 409 with the service's error body), before the operation runs, so
 *   nothing is stored;
 * - `list-order`: a list the spec leaves unordered is answered in another legal order (reversed);
 * - `omit-null-fields`: optional fields the answer carries as `null` are left out (only the members
 *   named `field`, when given).
 * @example
 * createHandler({ sim, services, mutation: { kind: "refusal", service: "runs", endpoint: "POST /runs/:run_id/actions/apply", code: "conflict" } })
 */
export type WireMutation =
  | { readonly kind: "refusal"; readonly service: string; readonly endpoint: string; readonly code: DomainErrorCode }
  | { readonly kind: "list-order"; readonly service: string; readonly endpoint: string }
  | { readonly kind: "omit-null-fields"; readonly service: string; readonly endpoint: string; readonly field?: string };

/**
 * The answer a `refusal` mutation gives instead of a success: the service's own error answer
 * (`service.errorResponse`) for a {@link DomainError} of `mutation.code`, worded with the message
 * the service's answers table gives for that code (the route's row's `messages`, else the table's;
 * none: the code's name) and the row's `titles`, if any.
 * @example refusalResponse(runsHttp, { kind: "refusal", service: "runs", endpoint: "POST /runs/:run_id/actions/apply", code: "conflict" }, request).status // 409
 */
export function refusalResponse(service: HttpService, mutation: Extract<WireMutation, { kind: "refusal" }>, request: SimRequest): SimResponse {
  const table = service.answerTable;
  const row = table?.routes[mutation.endpoint];
  const message = row?.messages?.[mutation.code] ?? table?.messages[mutation.code] ?? mutation.code.replace(/_/g, " ");
  const title = row?.titles?.[mutation.code];
  return service.errorResponse(new DomainError({ code: mutation.code, service: service.name, operation: mutation.endpoint, message, ...(title === undefined ? {} : { title }) }), request);
}

/**
 * `response` with its JSON body rewritten by `change` (given the parsed body; returns the new one,
 * or `undefined` to keep the answer as it was), serialized as the services write JSON
 * (`JSON.stringify`, no spaces) with a `content-length` recomputed when the answer carried one.
 * Answers that are not JSON, or carry no body, are returned as they are.
 * @example rewriteJson(response, (body) => ({ ...body, extra: 1 }))
 */
export function rewriteJson(response: SimResponse, change: (body: unknown) => unknown): SimResponse {
  if (response.body === undefined || response.drop !== undefined) return response;
  const type = Object.entries(response.headers).find(([name]) => name.toLowerCase() === "content-type")?.[1] ?? "";
  if (!/\bjson\b/i.test(type)) return response;
  const text = typeof response.body === "string" ? response.body : new TextDecoder().decode(response.body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return response;
  }
  const changed = change(parsed);
  if (changed === undefined) return response;
  const body = JSON.stringify(changed);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    headers[name] = name.toLowerCase() === "content-length" ? String(new TextEncoder().encode(body).length) : value;
  }
  return { ...response, headers, body: typeof response.body === "string" ? body : new TextEncoder().encode(body) };
}

/**
 * `response` with the array at JSON pointer `pointer` (RFC 6901; `""`: the body itself) in reverse
 * order, or as it was when there is no array there or it holds fewer than two items (one order only).
 * @example reorderList(json(200, { data: { keys: ["a", "b"] } }), "/data/keys").body // '{"data":{"keys":["b","a"]}}'
 */
export function reorderList(response: SimResponse, pointer: string): SimResponse {
  const path = pointer === "" ? [] : pointer.slice(1).split("/").map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"));
  return rewriteJson(response, (body) => {
    if (path.length === 0) return Array.isArray(body) && body.length > 1 ? [...body].reverse() : undefined;
    let parent: unknown = body;
    for (const part of path.slice(0, -1)) {
      if (parent === null || typeof parent !== "object") return undefined;
      parent = (parent as Record<string, unknown>)[part];
    }
    const last = path[path.length - 1] as string;
    if (parent === null || typeof parent !== "object") return undefined;
    const list = (parent as Record<string, unknown>)[last];
    if (!Array.isArray(list) || list.length < 2) return undefined;
    (parent as Record<string, unknown>)[last] = [...list].reverse();
    return body;
  });
}

/**
 * `response` with every object member whose value is `null` left out (only those named `field`,
 * when given), at any depth (`{"a":null}` becomes `{}`; `null` items of arrays stay: an array has
 * no optional members), or as it was when it has none.
 * @example omitNullFields(json(200, { wrap_info: null, data: { a: 1 } })).body // '{"data":{"a":1}}'
 * @example omitNullFields(json(200, { wrap_info: null, auth: null }), "auth").body // '{"wrap_info":null}'
 */
export function omitNullFields(response: SimResponse, field?: string): SimResponse {
  return rewriteJson(response, (body) => {
    let omitted = false;
    const strip = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(strip);
      if (value === null || typeof value !== "object") return value;
      const out: Record<string, unknown> = {};
      for (const [name, member] of Object.entries(value)) {
        if (member === null && (field === undefined || name === field)) omitted = true;
        else out[name] = strip(member);
      }
      return out;
    };
    const stripped = strip(body);
    return omitted ? stripped : undefined;
  });
}

/**
 * Whether a refusal may replace this answer: a success (2xx) the route gave, not an error it
 * already answered nor a dropped connection.
 * @example refusable({ status: 202, headers: {} }) // true
 */
export function refusable(response: SimResponse): boolean {
  return response.drop === undefined && response.status >= 200 && response.status < 300;
}
