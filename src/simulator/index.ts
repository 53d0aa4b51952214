/**
 * `infra-doubles/simulator`: the pure, HTTP-free simulator kernel (clocks, scheduler, seeded ids,
 * transition tables, domain errors) for users who drive the state machines directly.
 *
 * @packageDocumentation
 * @module infra-doubles/simulator
 */
export {
  AdvanceableClock,
  DEFAULT_START,
  GlobalDateClock,
  MAX_EPOCH_MS,
  clockDurationMs,
  ManualClock,
  SystemClock,
  toEpochMs,
  type Clock,
  type ClockListener,
  type Instant,
} from "./kernel/clock.js";
export { MAX_GO_DURATION_MS, formatGoDuration, parseDuration, type Duration } from "./kernel/duration.js";
export { DomainError, UsageError, isDomainError, type DomainErrorCode, type DomainErrorInit } from "./kernel/errors.js";
export { IdSource, type IdFormat, type IdKind, type IdState } from "./kernel/ids.js";
export { limitValue, type LimitUnit, type ServiceLimit } from "./kernel/limits.js";
export type { SimulatorMutation } from "./kernel/mutation.js";
export type { Dict } from "./kernel/dict.js";
export {
  accepts,
  acceptsNow,
  defineMachine,
  enterState,
  lookupTransition,
  machineTransitions,
  mutateMachine,
  reachableStates,
  tableOf,
  takeTransition,
  transition,
  type Machine,
  type StateSpec,
  type TransitionSpec,
} from "./kernel/machine.js";
export type { MovePayload, ScheduledMove, SchedulerState } from "./kernel/scheduler.js";
export {
  Simulator,
  type MoveHandler,
  type OperationContext,
  type ReadContext,
  type ServiceDefinition,
  type SimulatorOptions,
  type SimulatorSnapshot,
  type TraceUniverse,
} from "./kernel/simulator.js";
export type { TraceEvent, TraceListener, Tracer } from "./kernel/trace.js";
export { isoMillis, isoSeconds, rfc3339, unixSeconds } from "./kernel/time.js";
