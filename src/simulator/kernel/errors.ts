/**
 * Typed domain errors. The simulator raises these; each service's interceptor layer turns them into
 * that service's own status code and error body in one place.
 */

/**
 * The kinds of failure the simulator knows, independent of HTTP:
 * - `unauthenticated`: no credential, or one the service does not know;
 * - `forbidden`: the credential may not do this;
 * - `not_found`: the resource does not exist (or is hidden from the caller);
 * - `conflict`: the resource is in a state that does not allow the operation;
 * - `precondition_failed`: the resource's state does not allow the operation, and the service
 *   refuses it as a permission failure rather than a conflict (run orchestration's force-execute);
 * - `acl_not_found`: an ACL object the request names (not the caller's own credential) does not
 *   exist, and the service reports it as an ACL failure (access control's clone: `ACL not found`);
 * - `invalid`: the input breaks a validation rule;
 * - `malformed`: the request cannot be decoded at all;
 * - `unsupported`: the operation does not exist for this resource;
 * - `unavailable`: the service cannot answer now (e.g. sealed);
 * - `internal`: the real service answers with a server error here (kept for fidelity).
 */
export type DomainErrorCode =
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "precondition_failed"
  | "acl_not_found"
  | "invalid"
  | "malformed"
  | "unsupported"
  | "unavailable"
  | "internal";

/** Everything a service layer needs to render an error faithfully. */
export interface DomainErrorInit {
  code: DomainErrorCode;
  /** Service name, e.g. `runs`, `access-control`, `secrets`, `simulator`. */
  service: string;
  /** The operation that failed, e.g. `apply run`. */
  operation: string;
  /** The message, in the real service's own words where it has them. */
  message: string;
  /** The resource concerned, e.g. `run-abc123`. */
  resource?: string;
  /** The resource's state when it matters, e.g. `planning`. */
  state?: string;
  /** A JSON pointer to the offending input (JSON:API `source.pointer`). */
  pointer?: string;
  /** A short title the service uses for this kind of error, when it differs from the default. */
  title?: string;
  /**
   * An explicit HTTP status, set only by src/interceptors (wire-level refusals such as a logout
   * without a token). The simulator never sets it: each case has its own {@link DomainErrorCode},
   * mapped to a status by the service's error function (an ESLint rule enforces it).
   */
  status?: number;
}

/**
 * An error the simulated service itself would report. `message` is the service's own wording; the
 * `describe()` form names the service, operation, resource and state for test output.
 *
 * @example
 * throw new DomainError({ code: "conflict", service: "runs", operation: "apply run",
 *   resource: "run-abc", state: "planning", message: "Run was not paused for confirmation; apply not allowed" });
 */
export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly service: string;
  readonly operation: string;
  readonly resource: string | undefined;
  readonly state: string | undefined;
  readonly pointer: string | undefined;
  readonly title: string | undefined;
  readonly status: number | undefined;
  /** The bare message as the real service words it (without the service/operation prefix). */
  readonly detail: string;

  constructor(init: DomainErrorInit) {
    super(describe(init));
    this.name = "DomainError";
    this.code = init.code;
    this.service = init.service;
    this.operation = init.operation;
    this.resource = init.resource;
    this.state = init.state;
    this.pointer = init.pointer;
    this.title = init.title;
    this.status = init.status;
    this.detail = init.message;
  }
}

function describe(init: DomainErrorInit): string {
  const target = init.resource ? ` ${init.resource}` : "";
  const state = init.state ? ` (state "${init.state}")` : "";
  return `${init.service}: cannot ${init.operation}${target}${state}: ${init.message}`;
}

/**
 * True when `value` is a {@link DomainError}.
 * @example if (isDomainError(error) && error.code === "not_found") return json(404, { errors: [] });
 */
export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}

/**
 * An error in how the library is being used (bad arguments to a scenario call, a clock moved
 * backwards): not something the simulated service would answer. Prefixed `infra-doubles:`.
 * @example throw new UsageError("clock cannot go backwards") // message "infra-doubles: clock cannot go backwards"
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(`infra-doubles: ${message}`);
    this.name = "UsageError";
  }
}
