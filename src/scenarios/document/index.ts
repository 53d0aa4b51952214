/** Scenario documents: types, loading, validation, the timeline and its transcript. */
export type * from "./types.js";
export { ScenarioDocumentError, type ScenarioProblem } from "./errors.js";
export { loadScenario, type LoadedScenario, type ScenarioNames, type ScenarioTarget } from "./load.js";
export { formatOf, parseScenarioText, type ScenarioFormat } from "./parse.js";
export { scenarioSchema, validateScenario } from "./validate.js";
export { describeNames, type PlayOptions, type PlayedStep, type ScenarioTranscript } from "./timeline.js";
export { parsePath, type ExpectationResult } from "./expect.js";
