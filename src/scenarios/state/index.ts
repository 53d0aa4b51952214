/** State documents: the whole world of one doubles instance as a versioned JSON document, and back. */
export { exportState, importState, parseStateText, stateText, STATE_FORMAT, STATE_VERSION, type ExportStateOptions, type StateDocument, type StateMove } from "./document.js";
export { StateDocumentError, statePointer } from "./errors.js";
export { loadStateFile, readStateFile, stateFileExists, writeStateFile } from "./file.js";
export { migrateStateDocument, MIGRATIONS, type StateMigration } from "./migrate.js";
export { stateSchema, STATE_SCHEMA_FILE_NAME } from "./schema.js";
export { stateControlRoutes, stateFileOf, useStateFile } from "./control-routes.js";
