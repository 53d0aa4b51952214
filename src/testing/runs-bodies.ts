/**
 * Arbitraries of run orchestration request bodies, generated from the field-rule tables the
 * service reads bodies with (`CREATE_RUN_RULES`, `CREATE_CONFIGURATION_VERSION_RULES`, the
 * create-run exclusions): valid bodies it accepts, and invalid ones labelled with its 422.
 *
 * Engine-version bodies (the site administrators' admin API) come from `ENGINE_VERSION_RULES` and
 * the version and checksum patterns the simulator validates with; the body that names a version
 * already taken depends on stored data and takes the versions that exist.
 *
 * Spec: run-orchestration.md "Runs" (create run), "Configuration versions", "Engine versions".
 */
import fc from "fast-check";
import { CREATE_CONFIGURATION_VERSION_RULES, CREATE_RUN_RULES, ENGINE_VERSION_RULES, type AttributeRule, type BodyRules } from "../interceptors/runs/fields.js";
import { attributeTypeMessage, dataTypeMessage, type AttributeKind } from "../interceptors/runs/request.js";
import { ENGINE_VERSION_PATTERN, ENGINE_VERSION_REQUIRED, ENGINE_VERSION_SHA_PATTERN } from "../simulator/runs/engine-versions.js";
import { CREATE_RUN_EXCLUSIVE_INPUTS, PLAN_ONLY_INPUTS } from "../simulator/runs/runs.js";
import type { InvalidBody } from "./errors.js";

/** A JSON:API request document: `{ data: { type, attributes, relationships } }`. */
export interface JsonApiBody {
  readonly data: {
    readonly type: string;
    readonly attributes: Record<string, unknown>;
    readonly relationships?: Record<string, { data: { type: string; id: string } }>;
  };
}

/** Options of {@link createRunBody} and {@link invalidCreateRunBody}. */
export interface CreateRunBodyOptions {
  /** The workspace the run is for (`ws-...`); it must exist, and hold an uploaded configuration version unless `configurationVersionId` is given. */
  readonly workspaceId: string;
  /** An uploaded, non-speculative configuration version to name (default: the workspace's latest). */
  readonly configurationVersionId?: string;
  /** Enabled engine versions (e.g. `["1.9.0"]`): when given, plan-only bodies may name one. Default none. */
  readonly engineVersions?: readonly string[];
}

const text = fc.string({ maxLength: 12 });

const VALID_VALUE: Readonly<Record<AttributeKind, fc.Arbitrary<unknown>>> = {
  boolean: fc.boolean(),
  string: text,
  "nullable-string": fc.oneof(text, fc.constant(null)),
  "string-array": fc.oneof(fc.array(text, { maxLength: 3 }), fc.constant(null)),
  variables: fc.array(fc.record({ key: fc.string({ minLength: 1, maxLength: 8 }), value: fc.constantFrom('"text"', "10", "true", "[]") }), { maxLength: 2 }),
};

/** JSON values of another kind than `kind` (each read as a 422 by that kind's reader). */
const WRONG_VALUE: Readonly<Record<AttributeKind, fc.Arbitrary<unknown>>> = {
  boolean: fc.oneof(text, fc.integer(), fc.constant(null), fc.constant([])),
  string: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant({})),
  "nullable-string": fc.oneof(fc.integer(), fc.boolean(), fc.constant({}), fc.constant([])),
  "string-array": fc.oneof(text, fc.integer(), fc.boolean(), fc.constant({})),
  variables: fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.constant({})),
};

const wireOf = (rules: BodyRules, input: string): string => rules.attributes.find((a) => a.input === input)?.attribute ?? input;

function attributesArbitrary(rules: BodyRules, skip: readonly string[] = []): fc.Arbitrary<Record<string, unknown>> {
  const entries = rules.attributes.filter((a) => !skip.includes(a.attribute)).map((a) => [a.attribute, VALID_VALUE[a.kind]] as const);
  return fc.record(Object.fromEntries(entries), { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>>;
}

function relationships(options: CreateRunBodyOptions): JsonApiBody["data"]["relationships"] {
  const out: Record<string, { data: { type: string; id: string } }> = {};
  const ids: Record<string, string | undefined> = { workspaceId: options.workspaceId, configurationVersionId: options.configurationVersionId };
  for (const rule of CREATE_RUN_RULES.relationships) {
    const id = ids[rule.input];
    if (id !== undefined) out[rule.relationship] = { data: { type: rule.type, id } };
  }
  return out;
}

/** Drops the later attribute of every pair the service refuses together (both true). */
function clearOfExclusions(attributes: Record<string, unknown>): Record<string, unknown> {
  const out = { ...attributes };
  for (const rule of CREATE_RUN_EXCLUSIVE_INPUTS) {
    const [first, second] = rule.inputs.map((input) => wireOf(CREATE_RUN_RULES, input));
    if (first !== undefined && second !== undefined && out[first] === true && out[second] === true) delete out[first];
  }
  return out;
}

const planOnlyInputs = PLAN_ONLY_INPUTS.map((rule) => wireOf(CREATE_RUN_RULES, rule.input));

/**
 * Valid `POST /runs` bodies: every attribute of `CREATE_RUN_RULES` optional with a value of its
 * kind, the workspace relationship (and the configuration version when given), never a pair of
 * mutually exclusive attributes both true, and `engine-version` only on plan-only runs naming one
 * of `options.engineVersions`.
 * @param options - the workspace (and optionally a configuration version and engine versions).
 * @returns JSON:API documents, e.g. `{"data":{"type":"runs","attributes":{"is-destroy":true},"relationships":{"workspace":{"data":{"type":"workspaces","id":"ws-1"}}}}}`.
 * @example
 * fc.assert(fc.asyncProperty(createRunBody({ workspaceId }), async (body) => {
 *   const response = await fetch(`${doubles.baseUrls().runs.api}/runs`, { method: "POST", headers, body: JSON.stringify(body) });
 *   expect(response.status).toBe(201);
 * }));
 */
export function createRunBody(options: CreateRunBodyOptions): fc.Arbitrary<JsonApiBody> {
  const versions = options.engineVersions ?? [];
  const engine = versions.length > 0 ? fc.option(fc.constantFrom(...versions), { nil: undefined }) : fc.constant(undefined);
  return fc.tuple(attributesArbitrary(CREATE_RUN_RULES, planOnlyInputs), engine).map(([attributes, engineVersion]) => {
    const withEngine = engineVersion === undefined ? attributes : { ...attributes, [wireOf(CREATE_RUN_RULES, "planOnly")]: true, [planOnlyInputs[0] ?? ""]: engineVersion };
    return { data: { type: CREATE_RUN_RULES.type, attributes: clearOfExclusions(withEngine), relationships: relationships(options) } };
  });
}

function wrongKind(base: fc.Arbitrary<JsonApiBody>, rules: BodyRules, operationType: string): fc.Arbitrary<InvalidBody<JsonApiBody>> {
  return fc.tuple(base, fc.constantFrom(...rules.attributes)).chain(([body, rule]: [JsonApiBody, AttributeRule]) =>
    WRONG_VALUE[rule.kind].map((value) => ({
      body: { data: { ...body.data, type: operationType, attributes: { ...body.data.attributes, [rule.attribute]: value } } },
      expected: { status: 422, message: attributeTypeMessage(rule.kind, rule.attribute), pointer: `/data/attributes/${rule.attribute}` },
      why: `${rule.attribute} is ${JSON.stringify(value)}, not a ${rule.kind}`,
    })),
  );
}

/**
 * `POST /runs` bodies the service refuses, each labelled with its 422 (`detail` and
 * `source.pointer`): an attribute of the wrong JSON kind, a `data.type` other than `runs`, no
 * workspace relationship, a mutually exclusive pair both true, or `engine-version` on a run that
 * is not plan-only. The workspace must exist and hold an uploaded, non-speculative configuration
 * version (the exclusions are checked after the version is resolved).
 * @param options - as for {@link createRunBody}.
 * @example
 * fc.assert(fc.asyncProperty(invalidCreateRunBody({ workspaceId }), async ({ body, expected }) => {
 *   const response = await post("/runs", body);
 *   expect(await readServiceError("runs", response)).toEqual(expected);
 * }));
 */
export function invalidCreateRunBody(options: CreateRunBodyOptions): fc.Arbitrary<InvalidBody<JsonApiBody>> {
  const base = createRunBody({ ...options, engineVersions: [] });
  const missingWorkspace = CREATE_RUN_RULES.relationships.find((r) => r.missing !== undefined);
  const generators: fc.Arbitrary<InvalidBody<JsonApiBody>>[] = [
    wrongKind(base, CREATE_RUN_RULES, CREATE_RUN_RULES.type),
    fc.tuple(base, fc.constantFrom("run", "workspaces", "Runs", "")).map(([body, type]) => ({
      body: { data: { ...body.data, type } },
      expected: { status: 422, message: dataTypeMessage(CREATE_RUN_RULES.type), pointer: "/data/type" },
      why: `data.type is ${JSON.stringify(type)}`,
    })),
    fc.constantFrom(...CREATE_RUN_EXCLUSIVE_INPUTS).chain((rule) =>
      base.map((body) => ({
        body: { data: { ...body.data, attributes: { ...body.data.attributes, ...Object.fromEntries(rule.inputs.map((i) => [wireOf(CREATE_RUN_RULES, i), true])) } } },
        expected: { status: 422, message: rule.message, pointer: rule.pointer },
        why: `${rule.inputs.map((i) => wireOf(CREATE_RUN_RULES, i)).join(" and ")} are both true`,
      })),
    ),
    fc.tuple(base, fc.constantFrom(...PLAN_ONLY_INPUTS), fc.constantFrom("1.9.0", "latest")).map(([body, rule, version]) => {
      const wire = wireOf(CREATE_RUN_RULES, rule.input);
      const attributes = { ...body.data.attributes, [wire]: version, [wireOf(CREATE_RUN_RULES, "planOnly")]: false };
      return { body: { data: { ...body.data, attributes } }, expected: { status: 422, message: rule.message, pointer: rule.pointer }, why: `${wire} on a run that is not plan-only` };
    }),
  ];
  if (missingWorkspace?.missing !== undefined) {
    const missing = missingWorkspace.missing;
    generators.push(
      base.map((body) => {
        const rest = { ...body.data.relationships };
        delete rest[missingWorkspace.relationship];
        return { body: { data: { ...body.data, relationships: rest } }, expected: { status: 422, message: missing.message, pointer: missing.pointer }, why: `no ${missingWorkspace.relationship} relationship` };
      }),
    );
  }
  return fc.oneof(...generators);
}

/**
 * Valid `POST /workspaces/:workspace_id/configuration-versions` bodies (every attribute of
 * `CREATE_CONFIGURATION_VERSION_RULES` optional).
 * @example
 * fc.sample(createConfigurationVersionBody(), 1) // [{ data: { type: "configuration-versions", attributes: { "auto-queue-runs": false } } }]
 */
export function createConfigurationVersionBody(): fc.Arbitrary<JsonApiBody> {
  return attributesArbitrary(CREATE_CONFIGURATION_VERSION_RULES).map((attributes) => ({ data: { type: CREATE_CONFIGURATION_VERSION_RULES.type, attributes } }));
}

/**
 * Configuration-version bodies the service refuses, labelled with their 422: an attribute of the
 * wrong JSON kind.
 * @example
 * fc.sample(invalidCreateConfigurationVersionBody(), 1)[0].expected // { status: 422, message: "speculative must be a boolean", pointer: "/data/attributes/speculative" }
 */
export function invalidCreateConfigurationVersionBody(): fc.Arbitrary<InvalidBody<JsonApiBody>> {
  return wrongKind(createConfigurationVersionBody(), CREATE_CONFIGURATION_VERSION_RULES, CREATE_CONFIGURATION_VERSION_RULES.type);
}

/**
 * Valid bodies of the run actions (`apply`, `discard`, `cancel`, `force-cancel`):
 * `{"comment": "..."}`, `{}` or no body (`undefined`).
 * @example fc.sample(runActionBody(), 3) // [undefined, {}, { comment: "ship it" }]
 */
export function runActionBody(): fc.Arbitrary<{ comment?: string } | undefined> {
  return fc.oneof(fc.constant(undefined), fc.constant({}), text.map((comment) => ({ comment })));
}

/** Options of {@link engineVersionBody} and {@link invalidEngineVersionBody}. */
export interface EngineVersionBodyOptions {
  /** Versions that exist already (`1.9.0`): valid bodies never name one; the taken-version invalid body names one. */
  readonly taken?: readonly string[];
}

const semver = fc
  .tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 999 }), fc.option(fc.stringMatching(/^[0-9A-Za-z][0-9A-Za-z.-]{0,7}$/), { nil: undefined }))
  .map(([a, b, c, bundle]) => `${a}.${b}.${c}${bundle === undefined ? "" : `-${bundle}`}`)
  .filter((v) => ENGINE_VERSION_PATTERN.test(v));
const sha256 = fc.stringMatching(/^[0-9a-f]{64}$/).filter((v) => ENGINE_VERSION_SHA_PATTERN.test(v));

/** Boolean attributes of `ENGINE_VERSION_RULES`, each optional. */
function engineFlags(): fc.Arbitrary<Record<string, unknown>> {
  const flags = ENGINE_VERSION_RULES.attributes.filter((a) => a.kind === "boolean" && a.input !== "deprecated");
  return fc.record(Object.fromEntries(flags.map((a) => [a.attribute, fc.boolean()])), { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>>;
}

/**
 * Valid `POST /admin/engine-versions` bodies (site administrators only): a `version` matching
 * `N.N.N` or `N.N.N-bundle` and not taken, an https `url`, a SHA-256 `sha`, optionally
 * `deprecated` (with a `deprecated-reason` only then) and the flags `official`, `enabled`, `beta`.
 * @returns e.g. `{"data":{"type":"engine-versions","attributes":{"version":"1.9.0","url":"https://releases.example.com/engine/1.9.0.zip","sha":"ab12..."}}}`.
 * @example
 * fc.assert(fc.asyncProperty(engineVersionBody(), async (body) => {
 *   expect((await post("/admin/engine-versions", body)).status).toBe(201);
 * }));
 */
export function engineVersionBody(options: EngineVersionBodyOptions = {}): fc.Arbitrary<JsonApiBody> {
  const taken = new Set(options.taken ?? []);
  return fc
    .record({ version: semver.filter((v) => !taken.has(v)), sha: sha256, deprecated: fc.option(fc.boolean(), { nil: undefined }), reason: fc.option(text, { nil: null }), flags: engineFlags() })
    .map(({ version, sha, deprecated, reason, flags }) => {
      const attributes: Record<string, unknown> = { version, url: `https://releases.example.com/engine/${version}.zip`, sha, ...flags };
      if (deprecated !== undefined) attributes.deprecated = deprecated;
      if (deprecated === true) attributes["deprecated-reason"] = reason;
      return { data: { type: ENGINE_VERSION_RULES.type, attributes } };
    });
}

/**
 * Valid `PATCH /admin/engine-versions/:id` bodies: any subset of the attributes (a new `sha`, the
 * flags, `deprecated` with or without a reason, `deprecated: false` alone), never renaming.
 * @example fc.sample(engineVersionUpdateBody(), 1) // [{ data: { type: "engine-versions", attributes: { enabled: false } } }]
 */
export function engineVersionUpdateBody(): fc.Arbitrary<JsonApiBody> {
  return fc
    .record({ sha: fc.option(sha256, { nil: undefined }), deprecated: fc.option(fc.boolean(), { nil: undefined }), reason: fc.option(text, { nil: undefined }), flags: engineFlags() })
    .map(({ sha, deprecated, reason, flags }) => {
      const attributes: Record<string, unknown> = { ...flags };
      if (sha !== undefined) attributes.sha = sha;
      if (deprecated !== undefined) attributes.deprecated = deprecated;
      if (deprecated === true && reason !== undefined) attributes["deprecated-reason"] = reason;
      return { data: { type: ENGINE_VERSION_RULES.type, attributes } };
    });
}

const engineError = (attribute: string, message: string) => ({ status: 422, message, pointer: `/data/attributes/${attribute}` });

/**
 * Engine-version create bodies the service refuses, labelled with its 422 (`detail`, `pointer`):
 * an attribute of the wrong JSON kind, a `data.type` other than `engine-versions`, a required
 * attribute missing, a version that is not `N.N.N[-bundle]`, a URL that is not http(s), a `sha`
 * that is not 64 hex digits, a `deprecated-reason` without `deprecated`, and (stored data) a
 * version already taken: pass the versions that exist as `taken`.
 * @example
 * fc.assert(fc.asyncProperty(invalidEngineVersionBody({ taken: ["1.9.0"] }), async ({ body, expected }) => {
 *   expect(await readServiceError("runs", await post("/admin/engine-versions", body))).toEqual(expected);
 * }));
 */
export function invalidEngineVersionBody(options: EngineVersionBodyOptions = {}): fc.Arbitrary<InvalidBody<JsonApiBody>> {
  const base = engineVersionBody(options);
  const withAttribute = (attribute: string, value: unknown) => (body: JsonApiBody): JsonApiBody => ({ data: { ...body.data, attributes: { ...body.data.attributes, [attribute]: value } } });
  const generators: fc.Arbitrary<InvalidBody<JsonApiBody>>[] = [
    wrongKind(base, ENGINE_VERSION_RULES, ENGINE_VERSION_RULES.type),
    fc.tuple(base, fc.constantFrom("engine-version", "runs", "")).map(([body, type]) => ({
      body: { data: { ...body.data, type } },
      expected: { status: 422, message: dataTypeMessage(ENGINE_VERSION_RULES.type), pointer: "/data/type" },
      why: `data.type is ${JSON.stringify(type)}`,
    })),
    fc.tuple(base, fc.constantFrom(...ENGINE_VERSION_REQUIRED)).map(([body, attribute]) => {
      const attributes = { ...body.data.attributes };
      delete attributes[attribute];
      return { body: { data: { ...body.data, attributes } }, expected: engineError(attribute, `${attribute} is required`), why: `no ${attribute}` };
    }),
    fc.tuple(base, fc.constantFrom("1.9", "v1.9.0", "latest", "1.9.0-", "1.9.0 ")).map(([body, version]) => ({
      body: withAttribute("version", version)(body),
      expected: engineError("version", `Version "${version}" is not a semantic version (N.N.N or N.N.N-bundleName)`),
      why: `version ${JSON.stringify(version)}`,
    })),
    fc.tuple(base, fc.constantFrom("ftp://releases.example.com/e.zip", "releases.example.com/e.zip", "")).map(([body, url]) => ({
      body: withAttribute("url", url)(body),
      expected: engineError("url", `URL "${url}" is not a valid http or https URL`),
      why: `url ${JSON.stringify(url)}`,
    })),
    fc.tuple(base, fc.oneof(fc.stringMatching(/^[0-9a-f]{1,63}$/), fc.constant("z".repeat(64)))).map(([body, sha]) => ({
      body: withAttribute("sha", sha)(body),
      expected: engineError("sha", "SHA must be the 64 hexadecimal characters of a SHA-256 checksum"),
      why: "sha is not a SHA-256 checksum",
    })),
    fc.tuple(base, text).map(([body, reason]) => ({
      body: withAttribute("deprecated-reason", reason)(withAttribute("deprecated", false)(body)),
      expected: engineError("deprecated-reason", "Deprecated reason must be null unless deprecated is true"),
      why: "a deprecated reason on a version that is not deprecated",
    })),
  ];
  const taken = options.taken ?? [];
  if (taken.length > 0) {
    generators.push(
      fc.tuple(base, fc.constantFrom(...taken)).map(([body, version]) => ({
        body: withAttribute("url", `https://releases.example.com/engine/${version}.zip`)(withAttribute("version", version)(body)),
        expected: engineError("version", `Version "${version}" has already been taken`),
        why: `version ${version} exists already`,
      })),
    );
  }
  return fc.oneof(...generators);
}
