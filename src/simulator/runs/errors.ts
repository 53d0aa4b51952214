/**
 * Domain errors of the run orchestration service (FIDELITY.md "Run orchestration"). The
 * interceptor renders them as JSON:API error documents in one place (`interceptors/runs/errors.ts`):
 * `unauthenticated` -> 401, `not_found` and `forbidden` -> 404 (the service hides existence),
 * `conflict` -> 409 `transition not allowed`, `invalid` -> 422 `invalid attribute` with
 * `source.pointer`; force-execute preconditions are `precondition_failed` (the interceptor answers 403).
 */
import { DomainError } from "../kernel/errors.js";

/**
 * The simulator service name of the run orchestration service.
 * @example
 * sim.read(RUNS, (ctx) => ctx.state)
 */
export const RUNS = "runs";

/**
 * 404 `not found`: the resource does not exist, or the caller may not see or do it.
 * @example throw notFound("show run", "run-abc");
 */
export function notFound(operation: string, resource?: string): DomainError {
  return new DomainError({ code: "not_found", service: RUNS, operation, message: "not found", ...(resource ? { resource } : {}) });
}

/**
 * 401 `unauthorized`: a missing or unknown bearer token.
 * @example
 * throw unauthenticated("show run");
 */
export function unauthenticated(operation: string): DomainError {
  return new DomainError({ code: "unauthenticated", service: RUNS, operation, message: "unauthorized" });
}

/**
 * 409 `transition not allowed`, with `message` as the detail.
 * @example throw conflict("apply run", "run-abc", "planning", "Run was not paused for confirmation; apply not allowed");
 */
export function conflict(operation: string, resource: string, state: string, message: string): DomainError {
  return new DomainError({ code: "conflict", service: RUNS, operation, resource, state, message });
}

/**
 * 422 `invalid attribute`, with `message` as the detail and `pointer` as `source.pointer`.
 * @example throw invalidAttribute("create run", "/data/attributes/is-destroy", "is-destroy and refresh-only are mutually exclusive");
 */
export function invalidAttribute(operation: string, pointer: string, message: string): DomainError {
  return new DomainError({ code: "invalid", service: RUNS, operation, pointer, message });
}

/**
 * `precondition_failed` (the interceptor answers 403 `forbidden`, as the spec does): force-execute preconditions.
 * @example
 * throw forbidden("force-execute run", "run-abc", "planning", "Run is not pending; force-execute not allowed");
 */
export function forbidden(operation: string, resource: string, state: string, message: string): DomainError {
  return new DomainError({ code: "precondition_failed", service: RUNS, operation, resource, state, message });
}
