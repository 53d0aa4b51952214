/**
 * Migrations of state documents from older format versions. Each entry of {@link MIGRATIONS}
 * turns a document of version N into one of version N + 1; a document is migrated step by step to
 * {@link STATE_VERSION}. Version 1 is the first: no migration exists yet, so an older version (or
 * a newer one) is refused with its version named.
 */
import { refuse } from "./errors.js";

/** The version this infra-doubles writes (kept here so `document.ts` and migrations agree). */
const CURRENT = 1;

/** A document of one version into the next. */
export type StateMigration = (document: Record<string, unknown>) => Record<string, unknown>;

/**
 * Migrations by the version they read: `MIGRATIONS[1]` would turn a version 1 document into a
 * version 2 one (none yet: version 1 is the first).
 * @example migrateStateDocument(doc, { ...MIGRATIONS, 0: (v0) => ({ ...v0, version: 1 }) })
 */
export const MIGRATIONS: Readonly<Record<number, StateMigration>> = {};

/**
 * `document` brought to the current version.
 * @param migrations - the migrations to use (tests give their own).
 * @throws {StateDocumentError} at `""` for a value that is not a state document, at `/format` for
 *   another format, at `/version` for a version with no migration path (named, with the version
 *   this infra-doubles reads).
 * @example migrateStateDocument({ format: "infra-doubles/state", version: 1, ... }) // the same document
 */
export function migrateStateDocument(document: unknown, migrations: Readonly<Record<number, StateMigration>> = MIGRATIONS, current: number = CURRENT): Record<string, unknown> {
  if (typeof document !== "object" || document === null || Array.isArray(document)) refuse([], `must be a state document, an object like {"format": "infra-doubles/state", "version": ${current}, ...}`);
  let doc = document as Record<string, unknown>;
  if (doc.format !== "infra-doubles/state") refuse(["format"], `must be "infra-doubles/state"; got ${JSON.stringify(doc.format) ?? "nothing"}`);
  for (;;) {
    const version = doc.version;
    if (typeof version !== "number" || !Number.isSafeInteger(version)) refuse(["version"], `must be a whole number (this infra-doubles reads version ${current}); got ${JSON.stringify(version) ?? "nothing"}`);
    if (version === current) return doc;
    if (version > current) refuse(["version"], `version ${version} is newer than this infra-doubles reads (version ${current}): upgrade infra-doubles to load it`);
    const migrate = migrations[version];
    if (migrate === undefined) refuse(["version"], `version ${version} cannot be migrated to version ${current} (no migration from version ${version}): save the world again with a version of infra-doubles that reads it`);
    doc = migrate(doc);
  }
}
