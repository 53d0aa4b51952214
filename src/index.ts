/**
 * infra-doubles: faithful, stateful, time-controllable fakes of the run orchestration,
 * access-control and secrets services, for unit tests.
 *
 * @packageDocumentation
 * @module infra-doubles
 */
export * from "./simulator/index.js";
export { createHandler, type AnswerObserver, type AnsweredBy, type Handler, type HandlerOptions, type RequestHead } from "./interceptors/handler.js";
export type { AnswerFallback, UserRouteCall, UserRouteEntry, UserRouteMatch } from "./interceptors/user-routes.js";
export {
  DEFAULT_JOURNAL_BODY_BYTES,
  DEFAULT_JOURNAL_LIMIT,
  JournalBody,
  JournalEntry,
  MASK,
  RequestJournal,
  formatJournal,
  maskHeaders,
  maskJson,
  maskUrl,
  type FormatOptions,
  type JournalFilter,
  type JournalOptions,
} from "./interceptors/journal.js";
export type { EndpointNote, HttpService, NamedRoute, RequestBodyLimit, Route, RouteContext, RouteAnswers, RouteDoc, ServiceMount, SimRequest, SimResponse } from "./interceptors/http.js";
export { ANY_METHOD, INTERCEPTED_METHODS, interceptWithNock, type NockInterception, type TransportOptions } from "./interceptors/nock-adapter.js";
export { interceptWithInterceptors, type Interception } from "./interceptors/transports/interceptors.js";
export type { UnhandledAction, UnhandledRequestPrint, UnhandledRequestStrategy } from "./interceptors/transports/unhandled.js";
export { METHOD_OVERRIDE_HEADER, startServer, type RunningServer, type ServerOptions } from "./interceptors/server.js";
export {
  DoublesCore,
  makeClock,
  type BaseUrlOption,
  type ClockOption,
  type DoublesCoreOptions,
  type InterceptOptions,
  type ListenOptions,
  type SplitListenOptions,
  type SplitServers,
} from "./scenarios/doubles-core.js";
export {
  CONTROL_PREFIX,
  clockView,
  controlMounts,
  pageRows,
  type ClockMode,
  type ClockView,
  type ControlApiOptions,
  type DiagramControl,
  type FaultControl,
  type PluginControlRoutes,
  type ServiceTables,
  type StoredTable,
  type StoredTableCell,
  type StoredTableColumn,
  type StoredTableColumnKind,
  type StoredTablePage,
  type StoredTableQuery,
  type StoredTableRow,
} from "./interceptors/control.js";
export type { ServicePlugin } from "./scenarios/plugin.js";
export {
  COVERAGE_FORMAT,
  formatCoverageSummary,
  mergeCoverage,
  type CoverageReport,
  type CoverageTally,
  type EndpointTally,
  type MachineCoverage,
  type ServiceCoverage,
  type SummaryOptions,
} from "./scenarios/coverage/report.js";
export { COVERAGE_DIR_ENV } from "./scenarios/coverage/sink.js";
export {
  coverageMarks,
  DIAGRAM_FORMATS,
  diagramMarks,
  STATE_TABLES,
  stateDiagram,
  stateDiagramMermaid,
  stateDiagramSvg,
  stateTable,
  tableSummary,
  type CountedBy,
  type DiagramFormat,
  type DiagramMarks,
  type DiagramTransition,
  type StateDiagramOptions,
  type StateTable,
  type StateTableSummary,
} from "./scenarios/diagrams/index.js";
// The journal matchers, whole (the vitest entry exports the same module).
export * from "./scenarios/journal-matchers.js";
export * from "./scenarios/temporal-matchers.js";
export * from "./scenarios/mutants/index.js";
export type { SimulatorMutation } from "./simulator/kernel/mutation.js";
export type { WireMutation } from "./interceptors/mutation.js";
export { ALL_PLUGINS, Doubles, createDoubles, type DoublesBaseUrls, type DoublesOptions } from "./scenarios/doubles.js";
export * from "./scenarios/document/index.js";
export * from "./scenarios/state/index.js";
// Replay bundles: doubles.bundle(path) writes one, replayBundle() plays it (infra-doubles replay).
export { BUNDLE_FORMAT, BUNDLE_VERSION, BundleError, bodyBytes, readBundle, type Bundle, type BundleBody, type BundleControl, type BundleEvent, type BundleRequest } from "./scenarios/bundles/bundle.js";
export { replayBundle, type ReplayMismatch, type ReplayOptions, type ReplayResult } from "./scenarios/bundles/replay.js";
export { diffValues, type Change } from "./scenarios/bundles/diff.js";
export type { ControlEvent, EncodedValue, Unreplayable } from "./scenarios/bundles/recorder.js";
export * from "./scenarios/access-control/index.js";
export { accessControlHttp } from "./interceptors/access-control/service.js";
export * as accessControl from "./simulator/access-control/index.js";
export * from "./scenarios/secrets/index.js";
export * as secrets from "./simulator/secrets/index.js";
export * from "./scenarios/runs/index.js";
export * as runs from "./simulator/runs/index.js";
export { FaultSet, type FaultChange, type FaultHandle, type FaultsDocument, type FaultView, type SavedFaults } from "./scenarios/faults/fault-set.js";
export type { FaultDefinition, FaultTarget, FaultTime } from "./scenarios/faults/fault-definition.js";
export {
  mountedRoute,
  SERVICE_KEYS,
  type AccessControlOperation,
  type AccessControlRoute,
  type MountedRoute,
  type OperationName,
  type RouteName,
  type RoutesOf,
  type RouteTemplate,
  type RunsOperation,
  type RunsRoute,
  type SecretsEngineRoute,
  type SecretsRoute,
  type ServiceKey,
  type TemplateOf,
} from "./interceptors/vocabulary.js";
export type {
  PassthroughOption,
  PassthroughTarget,
  ParamName,
  ParamNames,
  PathParams,
  UserRouteAnswer,
  UserRouteHandle,
  UserRouteHandler,
  UserRouteName,
  UserRouteRequest,
  UserRoutes,
  UserRouteWorld,
} from "./scenarios/user-routes.js";
export { DEFAULT_PASSTHROUGH_TIMEOUT_MS } from "./interceptors/passthrough.js";
export { CONNECTION_FAULTS, type ConnectionFault, type FaultAnswer, type FaultAnswerOptions, type FaultPlan, type FaultQuery, type FaultSource } from "./interceptors/faults.js";
