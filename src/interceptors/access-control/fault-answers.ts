/**
 * The access-control service's own error answers that a fault can give, plain text with its
 * status codes (FIDELITY.md "Access control"), from its error writer.
 */
import type { FaultAnswer } from "../faults.js";
import { aclNotFound } from "../../simulator/access-control/errors.js";
import { accessControlErrorResponse, text } from "./errors.js";

/**
 * `no-cluster-leader` (500 `No cluster leader`: the servers lost their leader, an election is
 * under way), `acl-not-found` (403 `ACL not found`: the token presented is unknown to the server
 * answering, e.g. not yet replicated), `rate-limited` (429 `rate limit exceeded, try again later`).
 */
export const ACCESS_CONTROL_FAULT_ANSWERS: Readonly<Record<string, FaultAnswer>> = Object.freeze({
  "no-cluster-leader": {
    status: 500,
    description: "the cluster has no leader (500 No cluster leader)",
    respond: () => text(500, "No cluster leader"),
  },
  "acl-not-found": {
    status: 403,
    description: "the token presented is not known (403 ACL not found)",
    respond: (request) => accessControlErrorResponse(aclNotFound(`${request.method} ${request.url.pathname}`), request),
  },
  "rate-limited": {
    status: 429,
    description: "the server's request rate limit refused the call (429)",
    respond: () => text(429, "rate limit exceeded, try again later"),
  },
});
