/**
 * The assertion language of `expect` steps: a path into a read-only view of the simulated state,
 * and `equals` (deep equality with a JSON value), `matches` (an RE2 regular expression, linear time,
 * searched in the value as text) or `exists`.
 *
 * Path syntax: `a.b.c`, `[0]` for an array index, `["acme/prod"]` (or `[acme/prod]`) for a name
 * with other characters than letters, digits, `_` and `-`. See {@link Expectation} for the roots.
 */
import { isDeepStrictEqual } from "node:util";
import { compileRe2, Re2SyntaxError } from "../../simulator/access-control/selector/re2-adapter.js";
import { isoMillis } from "../../simulator/kernel/time.js";
import { RUNS } from "../../simulator/runs/errors.js";
import type { RunsState } from "../../simulator/runs/state.js";
import { SECRETS } from "../../simulator/secrets/errors.js";
import type { SecretsState } from "../../simulator/secrets/state.js";
import { managedKeyView } from "../../simulator/secrets/managed-keys.js";
import { cloudScenario } from "../secrets/cloud/cloud-scenario.js";
import { sshScenario } from "../secrets/ssh/ssh-scenario.js";
import { ScenarioDocumentError, pointer } from "./errors.js";
import type { NameResolver, ScenarioTarget } from "./target.js";
import type { Expectation } from "./types.js";

/**
 * Splits a path into segments.
 * @throws {Error} with a description of the syntax error.
 * @example parsePath('runs.workspaces["acme/prod"].runs[0].status') // ["runs", "workspaces", "acme/prod", "runs", 0, "status"]
 */
export function parsePath(path: string): (string | number)[] {
  const segments: (string | number)[] = [];
  let i = 0;
  const ident = /[A-Za-z0-9_$-]+/y;
  while (i < path.length) {
    if (path[i] === "[") {
      const close = path.indexOf("]", i);
      if (close < 0) throw new Error(`"[" at ${i} is never closed`);
      let inner = path.slice(i + 1, close).trim();
      if (/^\d+$/.test(inner)) segments.push(Number(inner));
      else {
        if (/^(".*"|'.*')$/.test(inner)) inner = inner.slice(1, -1);
        if (inner === "") throw new Error(`empty [] at ${i}`);
        segments.push(inner);
      }
      i = close + 1;
    } else {
      if (segments.length > 0) {
        if (path[i] !== ".") throw new Error(`expected "." or "[" at ${i}, found ${JSON.stringify(path[i])}`);
        i++;
      }
      ident.lastIndex = i;
      const match = ident.exec(path);
      if (match === null) throw new Error(`expected a name at ${i}`);
      segments.push(match[0]);
      i += match[0].length;
    }
  }
  if (segments.length === 0) throw new Error("the path is empty");
  return segments;
}

/** JSON form of a value: what `equals` compares and the transcript prints (`undefined` stays undefined). */
function plain(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}

function walk(value: unknown, segments: readonly (string | number)[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (current === null || current === undefined || typeof current !== "object") return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/** The view of one root, and how many path segments it consumed. */
function root(target: ScenarioTarget, resolve: NameResolver, segments: readonly (string | number)[], where: readonly (string | number)[]): [unknown, number] {
  const [service, collection, key] = segments;
  const name = String(key);
  switch (service) {
    case "faults": {
      const list = target.faults.list();
      if (collection === undefined) return [list, 1];
      return [list.find((f) => f.id === String(collection)) ?? null, 2];
    }
    case "clock": {
      const now = target.sim.now();
      return [{ now: isoMillis(now), epochMs: now }, 1];
    }
    case "runs":
      if (collection === "workspaces" && key !== undefined) {
        const id = resolve.workspace(name, where);
        const runs = target.runs.runsOf(id);
        return [{ ...target.runs.workspace(id), runs, latestRun: runs[0] ?? null, queue: target.runs.workspaceQueue(id) }, 3];
      }
      if (collection === "runs" && key !== undefined) return [target.runs.run(resolve.run(name, where)), 3];
      if (collection === "tokens" && key !== undefined) {
        const bearer = resolve.runsToken(name, where);
        const token = target.sim.read<RunsState, unknown>(RUNS, (ctx) => {
          const record = ctx.state.tokens[bearer];
          return record === undefined ? null : { kind: record.kind, owner: record.owner, description: record.description, createdAt: isoMillis(record.createdAt) };
        });
        return [token, 3];
      }
      break;
    case "accessControl": {
      const acl = target.accessControl;
      if (collection === "tokens" && key !== undefined) return [acl.token(resolve.aclToken(name, where).accessorId) ?? null, 3];
      if (collection === "access" && key !== undefined) return [acl.access(resolve.aclToken(name, where).secretId), 3];
      if (collection === "policies" && key !== undefined) return [acl.policy(name) ?? null, 3];
      if (collection === "roles" && key !== undefined) return [acl.role(name) ?? null, 3];
      if (collection === "bindingRules") return [acl.bindingRules(), 2];
      if (collection === "settings") return [acl.settings, 2];
      break;
    }
    case "secrets": {
      const secrets = target.secrets;
      if (collection === "nodeState") return [secrets.nodeState, 2];
      if (collection === "mounts") return [secrets.mounts(), 2];
      if (collection === "leases") return [secrets.leases(), 2];
      if (collection === "tokens" && key !== undefined) {
        const secret = resolve.secretsToken(name, where);
        const record = target.sim.read<SecretsState, unknown>(SECRETS, (ctx) => {
          const token = ctx.state.tokens[secret];
          return token === undefined || (token.expiresAt !== null && token.expiresAt <= ctx.now) ? null : structuredClone(token);
        });
        return [record, 3];
      }
      if (collection === "managedKeys" && key !== undefined) {
        const record = secrets.managedKey(name);
        return [record === undefined ? null : managedKeyView(record), 3];
      }
      if (collection === "loginEnforcements" && key !== undefined) return [secrets.loginEnforcement(name) ?? null, 3];
      if (collection === "cloud" && key !== undefined) {
        const cloud = cloudScenario(secrets, name);
        const [, , , what, role] = segments;
        if (what === "roles" && role !== undefined) return [cloud.role(String(role)) ?? null, 5];
        if (what === "staticRoles" && role !== undefined) return [cloud.staticRole(String(role)) ?? null, 5];
      }
      if (collection === "ssh" && key !== undefined) {
        const ssh = sshScenario(secrets, name);
        const [, , , what, role] = segments;
        if (what === "roles" && role !== undefined) return [ssh.role(String(role)) ?? null, 5];
        if (what === "caPublicKey") return [ssh.caPublicKey() ?? null, 4];
      }
      break;
    }
  }
  throw new ScenarioDocumentError("reference", [
    {
      path: pointer(where),
      expected:
        "a path from clock, runs.workspaces.<workspace>, runs.runs.<run>, runs.tokens.<name>, accessControl.(tokens|access|policies|roles).<name>, accessControl.bindingRules, accessControl.settings, secrets.nodeState, secrets.mounts, secrets.leases, secrets.tokens.<name>, secrets.ssh.<mount>.(roles.<role>|caPublicKey), secrets.cloud.<mount>.(roles|staticRoles).<name>, secrets.(managedKeys|loginEnforcements).<name>, faults, faults.<id>",
    },
  ]);
}

/**
 * Reads the value at `path`.
 * @throws {ScenarioDocumentError} (`reference`) for a path with a bad syntax, an unknown root or an unknown name.
 * @example readPath(doubles, resolver, "secrets.nodeState", ["timeline", 2, "expect", "path"]) // "active"
 */
export function readPath(target: ScenarioTarget, resolve: NameResolver, path: string, where: readonly (string | number)[]): unknown {
  let segments: (string | number)[];
  try {
    segments = parsePath(path);
  } catch (error) {
    throw new ScenarioDocumentError("reference", [{ path: pointer(where), expected: `a path like runs.workspaces["acme/prod"].latestRun.status: ${(error as Error).message}` }]);
  }
  const [view, used] = root(target, resolve, segments, where);
  return plain(walk(view, segments.slice(used)));
}

/** The result of one `expect` step. */
export interface ExpectationResult {
  readonly ok: boolean;
  /** The value found at the path (JSON form; `undefined` when absent). */
  readonly actual: unknown;
  /** What was expected, in words: `equals "applied"`, `matches ^s\.`, `exists`. */
  readonly wanted: string;
}

/**
 * Checks one expectation.
 * @throws {ScenarioDocumentError} for an unknown path, an invalid regular expression, or none (or
 *   more than one) of `equals`, `matches`, `exists`.
 * @example checkExpectation(doubles, resolver, { path: "secrets.nodeState", equals: "sealed" }, ["timeline", 0, "expect"])
 */
export function checkExpectation(target: ScenarioTarget, resolve: NameResolver, expectation: Expectation, where: readonly (string | number)[]): ExpectationResult {
  const kinds = (["equals", "matches", "exists"] as const).filter((k) => k in expectation);
  if (kinds.length !== 1) {
    throw new ScenarioDocumentError("schema", [{ path: pointer(where), expected: `must have exactly one of equals, matches or exists (got ${kinds.length === 0 ? "none" : kinds.join(", ")})` }]);
  }
  const actual = readPath(target, resolve, expectation.path, [...where, "path"]);
  if (expectation.matches !== undefined) {
    let ok: boolean;
    try {
      ok = actual !== undefined && compileRe2(expectation.matches).test(typeof actual === "string" ? actual : JSON.stringify(actual));
    } catch (error) {
      if (error instanceof Re2SyntaxError) throw new ScenarioDocumentError("schema", [{ path: pointer([...where, "matches"]), expected: `a regular expression (RE2 syntax): ${error.message}` }]);
      throw error;
    }
    return { ok, actual, wanted: `matches ${expectation.matches}` };
  }
  if (expectation.exists !== undefined) {
    const present = actual !== undefined && actual !== null;
    return { ok: present === expectation.exists, actual, wanted: expectation.exists ? "exists" : "does not exist" };
  }
  return { ok: isDeepStrictEqual(actual, plain(expectation.equals)), actual, wanted: `equals ${JSON.stringify(expectation.equals)}` };
}
