/**
 * The simulator's trace: what services did, as data (a state entered, a transition taken through
 * a machine's table, a named event such as a token used or a lease renewed). Observers (coverage)
 * subscribe with `Simulator.onTrace`; tracing never changes state or answers. An event traced
 * inside a transaction reaches observers only if the transaction commits.
 */
/** One traced fact. */
export type TraceEvent =
  /** A resource was created in `state` of `machine` (transitions trace their targets themselves). */
  | { readonly kind: "state"; readonly machine: string; readonly state: string }
  /** `machine` took `event` from `from` to `to` (a row of its table). */
  | { readonly kind: "transition"; readonly machine: string; readonly from: string; readonly event: string; readonly to: string }
  /** A named event of `subject` (`token` used, `lease` renewed, `node state` seen, ...). */
  | { readonly kind: "event"; readonly subject: string; readonly name: string };

/** Receives each traced event with the name of the service that traced it. */
export type TraceListener = (service: string, event: TraceEvent) => void;

/** Whatever can trace (every simulator context). */
export interface Tracer {
  /** Records `event` for observers; costs nothing when nobody observes. */
  trace(event: TraceEvent): void;
}
