/**
 * The secrets service's response envelope: `request_id`, `lease_id`, `renewable`,
 * `lease_duration` (seconds), `data`, `wrap_info` (null), `warnings` (array or null), `auth` (null).
 *
 * Spec: secrets.md "Resources and their fields" (envelope).
 */
import { json, type SimResponse } from "../http.js";

/** What goes into an envelope besides the request id. */
export interface EnvelopeInput {
  readonly data: Record<string, unknown> | null;
  readonly leaseId?: string;
  /** Seconds. */
  readonly leaseDurationSeconds?: number;
  readonly renewable?: boolean;
  readonly warnings?: readonly string[];
}

/** The envelope body, fields in the real service's order. */
export function envelopeBody(requestId: string, input: EnvelopeInput): Record<string, unknown> {
  return {
    request_id: requestId,
    lease_id: input.leaseId ?? "",
    renewable: input.renewable ?? false,
    lease_duration: input.leaseDurationSeconds ?? 0,
    data: input.data,
    wrap_info: null,
    warnings: input.warnings && input.warnings.length > 0 ? [...input.warnings] : null,
    auth: null,
  };
}

/** A JSON envelope response (status 200 unless told). */
export function envelope(requestId: string, input: EnvelopeInput, status = 200): SimResponse {
  return json(status, envelopeBody(requestId, input));
}
