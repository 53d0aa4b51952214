/**
 * Engine versions, the site administrators' admin API (spec: run-orchestration.md, "Engine versions").
 * Every operation is for site administrators only (others get `not_found`). Validation failures are
 * `invalid` (422) with a pointer to the attribute; a version that is official or used by a
 * workspace cannot be deleted (422).
 */
import type { OperationContext } from "../kernel/simulator.js";
import { requireSiteAdmin, type Caller } from "./access.js";
import { invalidAttribute, notFound } from "./errors.js";
import { nextSeq, type EngineVersion, type RunsState } from "./state.js";


/** Attributes of an engine version (all optional on update: omitted ones keep their value). */
export interface EngineVersionInput {
  readonly version?: string;
  readonly url?: string;
  readonly sha?: string;
  readonly deprecated?: boolean;
  readonly deprecatedReason?: string | null;
  readonly official?: boolean;
  readonly enabled?: boolean;
  readonly beta?: boolean;
}

/**
 * An engine version's `version`: `N.N.N` or `N.N.N-bundleName` (anything else is a 422).
 * @example ENGINE_VERSION_PATTERN.test("1.9.0-beta1") // true
 */
export const ENGINE_VERSION_PATTERN = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z][0-9A-Za-z.-]*)?$/;
/**
 * An engine version's `sha`: the 64 hexadecimal characters of a SHA-256 checksum.
 * @example ENGINE_VERSION_SHA_PATTERN.test("ab".repeat(32)) // true
 */
export const ENGINE_VERSION_SHA_PATTERN = /^[0-9a-f]{64}$/i;
/** The attributes a create needs (in the order their absence is reported). */
export const ENGINE_VERSION_REQUIRED = Object.freeze(["version", "url", "sha"] as const);
const VERSION = ENGINE_VERSION_PATTERN;
const SHA256 = ENGINE_VERSION_SHA_PATTERN;
const pointer = (attribute: string): string => `/data/attributes/${attribute}`;

/**
 * How many workspaces use `version` (the engine version's `usage`).
 * @example
 * usageOf(ctx.state, "1.9.8") // number of workspaces on 1.9.8
 */
export function usageOf(state: RunsState, version: string): number {
  return Object.values(state.workspaces).filter((w) => w.engineVersion === version).length;
}

/** Filters of the list (spec: `filter[version]` exact and taking precedence, `search[version]` substring). */
export interface EngineVersionQuery {
  readonly filterVersion?: string;
  readonly searchVersion?: string;
}

/**
 * Lists engine versions, newest first.
 * @throws {DomainError} `not_found` (404) for a caller who is not a site administrator.
 * @example
 * listEngineVersions(ctx.state, admin, { searchVersion: "1.9" })
 */
export function listEngineVersions(state: RunsState, caller: Caller, query: EngineVersionQuery): EngineVersion[] {
  requireSiteAdmin(caller, "list engine versions");
  return Object.values(state.engineVersions)
    .filter((v) => {
      if (query.filterVersion !== undefined) return v.version === query.filterVersion;
      if (query.searchVersion !== undefined) return v.version.includes(query.searchVersion);
      return true;
    })
    .sort((a, b) => b.seq - a.seq);
}

/**
 * One engine version.
 * @throws {DomainError} `not_found` (404) when missing or the caller is not a site administrator.
 * @example
 * showEngineVersion(ctx.state, admin, "tool-abc").version
 */
export function showEngineVersion(state: RunsState, caller: Caller, id: string): EngineVersion {
  requireSiteAdmin(caller, "show engine version");
  const found = state.engineVersions[id];
  if (found === undefined) throw notFound("show engine version", id);
  return found;
}

function validate(state: RunsState, operation: string, value: EngineVersion): void {
  if (!VERSION.test(value.version)) {
    throw invalidAttribute(operation, pointer("version"), `Version "${value.version}" is not a semantic version (N.N.N or N.N.N-bundleName)`);
  }
  if (Object.values(state.engineVersions).some((v) => v.id !== value.id && v.version === value.version)) {
    throw invalidAttribute(operation, pointer("version"), `Version "${value.version}" has already been taken`);
  }
  if (!isHttpUrl(value.url)) throw invalidAttribute(operation, pointer("url"), `URL "${value.url}" is not a valid http or https URL`);
  if (!SHA256.test(value.sha)) throw invalidAttribute(operation, pointer("sha"), "SHA must be the 64 hexadecimal characters of a SHA-256 checksum");
  if (!value.deprecated && value.deprecatedReason !== null) {
    throw invalidAttribute(operation, pointer("deprecated-reason"), "Deprecated reason must be null unless deprecated is true");
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

/**
 * Creates an engine version (`tool-...`); `version`, `url` and `sha` are required.
 * @throws {DomainError} `not_found` (404) for a caller who is not a site administrator; `invalid`
 *   (422) for a missing or malformed attribute, a taken version, or a deprecated reason without
 *   `deprecated`.
 * @example createEngineVersion(ctx, admin, { version: "1.10.0", url: "https://.../engine.zip", sha: "ab12..." })
 */
export function createEngineVersion(ctx: OperationContext<RunsState>, caller: Caller, input: EngineVersionInput): EngineVersion {
  const operation = "create engine version";
  requireSiteAdmin(caller, operation);
  for (const required of ENGINE_VERSION_REQUIRED) {
    if (input[required] === undefined) throw invalidAttribute(operation, pointer(required), `${required} is required`);
  }
  const value: EngineVersion = {
    id: ctx.ids.prefixed("tool-"),
    seq: nextSeq(ctx.state),
    version: input.version ?? "",
    url: input.url ?? "",
    sha: input.sha ?? "",
    deprecated: input.deprecated ?? false,
    deprecatedReason: input.deprecatedReason ?? null,
    official: input.official ?? false,
    enabled: input.enabled ?? true,
    beta: input.beta ?? false,
    createdAt: ctx.now,
  };
  validate(ctx.state, operation, value);
  ctx.state.engineVersions[value.id] = value;
  return value;
}

/**
 * Updates an engine version; omitted attributes keep their value. Setting `deprecated` to false
 * without a reason clears the reason.
 * @throws {DomainError} `not_found` (404) when missing or the caller is not a site administrator;
 *   `invalid` (422) as for create.
 * @example
 * updateEngineVersion(ctx, admin, "tool-abc", { enabled: false })
 */
export function updateEngineVersion(ctx: OperationContext<RunsState>, caller: Caller, id: string, input: EngineVersionInput): EngineVersion {
  const operation = "update engine version";
  requireSiteAdmin(caller, operation);
  const existing = ctx.state.engineVersions[id];
  if (existing === undefined) throw notFound(operation, id);
  const deprecated = input.deprecated ?? existing.deprecated;
  const reason =
    input.deprecatedReason !== undefined ? input.deprecatedReason : input.deprecated === false ? null : existing.deprecatedReason;
  const next: EngineVersion = {
    ...existing,
    version: input.version ?? existing.version,
    url: input.url ?? existing.url,
    sha: input.sha ?? existing.sha,
    deprecated,
    deprecatedReason: reason,
    official: input.official ?? existing.official,
    enabled: input.enabled ?? existing.enabled,
    beta: input.beta ?? existing.beta,
  };
  validate(ctx.state, operation, next);
  if (next.version !== existing.version && usageOf(ctx.state, existing.version) > 0) {
    throw invalidAttribute(operation, pointer("version"), `Version "${existing.version}" is used by workspaces and cannot be renamed`);
  }
  ctx.state.engineVersions[id] = next;
  return next;
}

/**
 * Deletes an engine version.
 * @throws {DomainError} `not_found` (404) when missing or the caller is not a site administrator;
 *   `invalid` (422) when the version is official or used by workspaces.
 * @example
 * deleteEngineVersion(ctx, admin, "tool-abc");
 */
export function deleteEngineVersion(ctx: OperationContext<RunsState>, caller: Caller, id: string): void {
  const operation = "delete engine version";
  requireSiteAdmin(caller, operation);
  const existing = ctx.state.engineVersions[id];
  if (existing === undefined) throw notFound(operation, id);
  if (existing.official) throw invalidAttribute(operation, pointer("official"), `Version "${existing.version}" is official and cannot be deleted`);
  const usage = usageOf(ctx.state, existing.version);
  if (usage > 0) throw invalidAttribute(operation, pointer("usage"), `Version "${existing.version}" is used by ${usage} workspace(s) and cannot be deleted`);
  delete ctx.state.engineVersions[id];
}
