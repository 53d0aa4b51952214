/**
 * What each access-control route answers. access-control.md documents the success bodies and one
 * status (404 for a missing binding rule on read); FIDELITY.md "Access control" gives the rest:
 * 403 `Permission denied` for a token lacking `acl:read`/`acl:write`, 403 `ACL not found` for an
 * unknown token presented (`GET /acl/token/self`) and for a missing policy, 404 on reads of a
 * missing token, rule or role (each in its own words), 400 for request-shape errors (undecodable body, id mismatch) and 500 for semantic
 * validation failures. Every answer is 200. The lists' order is not in the spec (the fake lists in
 * the store's index order: docs/decisions/access-control.md), so each list may come in another;
 * no answer carries `null` members (empty fields are omitted, FIDELITY.md), so no field-omitted.
 * Data for service mutants.
 */
import { answersRow as row, type RouteAnswersTable } from "../route-answers.js";
import type { AccessControlRoute } from "../route-names.js";

const list = { unorderedList: "" } as const;

/** Every access-control route's documented answers (a route missing here is a compile error). */
const ROUTES: Readonly<Record<AccessControlRoute, ReturnType<typeof row>>> = {
  "PUT /acl/token": row(200, ["forbidden", "malformed", "invalid"]),
  "GET /acl/token/self": row(200, ["acl_not_found"]),
  "PUT /acl/token/:AccessorID/clone": row(200, ["forbidden", "acl_not_found", "malformed"]),
  "GET /acl/token/:AccessorID": row(200, ["forbidden", "not_found"]),
  "PUT /acl/token/:AccessorID": row(200, ["forbidden", "malformed", "invalid"]),
  "DELETE /acl/token/:AccessorID": row(200, ["forbidden"]),
  "GET /acl/tokens": row(200, ["forbidden"], list),
  "PUT /acl/binding-rule": row(200, ["forbidden", "malformed", "invalid"]),
  "GET /acl/binding-rule/:id": row(200, ["forbidden", "not_found"], { messages: { not_found: "Requested binding rule does not exist: ACL not found" } }),
  "PUT /acl/binding-rule/:id": row(200, ["forbidden", "malformed", "invalid"]),
  "DELETE /acl/binding-rule/:id": row(200, ["forbidden"]),
  "GET /acl/binding-rules": row(200, ["forbidden"], list),
  // Nothing bound -> 403 `Permission denied` (FIDELITY.md "Login through an auth method").
  "POST /acl/login": row(200, ["forbidden", "malformed"]),
  "POST /acl/logout": row(200, ["acl_not_found"]),
  "PUT /acl/bootstrap": row(200, ["forbidden"]),
  "PUT /acl/policy": row(200, ["forbidden", "malformed", "invalid"]),
  // A missing policy is 403 `ACL not found` (its read handler returns the ACL "not found" error).
  "GET /acl/policy/name/:name": row(200, ["forbidden", "acl_not_found"]),
  "GET /acl/policy/:id": row(200, ["forbidden", "acl_not_found"]),
  "PUT /acl/policy/:id": row(200, ["forbidden", "malformed", "invalid"]),
  "DELETE /acl/policy/:id": row(200, ["forbidden"]),
  "GET /acl/policies": row(200, ["forbidden"], list),
  "PUT /acl/role": row(200, ["forbidden", "malformed", "invalid"]),
  // A missing role is a 404 with an empty body.
  "GET /acl/role/name/:name": row(200, ["forbidden", "not_found"], { messages: { not_found: "" } }),
  "GET /acl/role/:id": row(200, ["forbidden", "not_found"], { messages: { not_found: "" } }),
  "PUT /acl/role/:id": row(200, ["forbidden", "malformed", "invalid"]),
  "DELETE /acl/role/:id": row(200, ["forbidden"]),
  "GET /acl/roles": row(200, ["forbidden"], list),
  "GET /status/leader": row(200),
  "GET /status/peers": row(200),
};

/**
 * The access-control service's answers table ({@link RouteAnswersTable}); the messages are the
 * plain-text bodies of FIDELITY.md "Access control".
 * @example ACCESS_CONTROL_ANSWERS.routes["GET /acl/tokens"]?.unorderedList // ""
 */
export const ACCESS_CONTROL_ANSWERS: RouteAnswersTable = Object.freeze({
  routes: Object.freeze(ROUTES),
  messages: Object.freeze({
    forbidden: "Permission denied",
    acl_not_found: "ACL not found",
    not_found: "Requested token does not exist: ACL not found",
    malformed: "Request decode failed: unexpected end of JSON input",
    invalid: "Invalid request",
  }),
});
