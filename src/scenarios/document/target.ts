/**
 * What a scenario document loads into and how its names resolve: the target (`Doubles`), the
 * names a document's fixtures resolved to, the resolver, and the steps the loader and the
 * timeline share (node state, faults, refusals turned into {@link ScenarioDocumentError}).
 */
import type { Simulator } from "../../simulator/kernel/simulator.js";
import { UsageError, isDomainError } from "../../simulator/kernel/errors.js";
import { RUNS } from "../../simulator/runs/errors.js";
import type { RunsState } from "../../simulator/runs/state.js";
import { SECRETS } from "../../simulator/secrets/errors.js";
import type { SecretsState } from "../../simulator/secrets/state.js";
import type { AccessControlScenario } from "../access-control/scenario.js";
import type { RunsScenario } from "../runs/runs-scenario.js";
import type { SecretsScenario } from "../secrets/secrets-scenario.js";
import type { FaultDefinition, FaultDefinitionError } from "../faults/fault-definition.js";
import type { FaultSet } from "../faults/fault-set.js";
import { pointer, ScenarioDocumentError } from "./errors.js";
import type { ScenarioFault, SecretsNodeStateFixture } from "./types.js";

/** What a scenario loads into: `Doubles` (the three services' controls, the simulator). */
export interface ScenarioTarget {
  readonly sim: Simulator;
  readonly runs: RunsScenario;
  readonly accessControl: AccessControlScenario;
  readonly secrets: SecretsScenario;
  readonly faults: FaultSet;
  /** The service mutant the target was built as (its id), if any. */
  readonly mutant?: { readonly id: string } | undefined;
}

/**
 * The ids and credentials a document's names resolved to (seeded: the same document and seed give
 * the same values).
 */
export interface ScenarioNames {
  readonly runs: {
    /** `organization/name` -> `ws-...`. */
    readonly workspaces: Record<string, string>;
    /** username -> `user-...`. */
    readonly users: Record<string, string>;
    /** `organization/name` -> `team-...`. */
    readonly teams: Record<string, string>;
    /** token name -> bearer value. */
    readonly tokens: Record<string, string>;
    /** run name (timeline `queueRun` / `uploadConfiguration`) -> `run-...`. */
    readonly runs: Record<string, string>;
  };
  readonly accessControl: {
    /** token name -> its AccessorID and SecretID. */
    readonly tokens: Record<string, { readonly accessorId: string; readonly secretId: string }>;
    /** policy name -> ID. */
    readonly policies: Record<string, string>;
    /** role name -> ID. */
    readonly roles: Record<string, string>;
    /** The bootstrap token (full access). */
    readonly bootstrap: { readonly accessorId: string; readonly secretId: string };
  };
  readonly secrets: {
    /** token name -> the secret to send as `X-Secrets-Token`. */
    readonly tokens: Record<string, string>;
    /** The root token. */
    readonly rootToken: string;
    /** `<mount>` -> the generated SSH CA public key. */
    readonly sshCaPublicKeys: Record<string, string>;
    /** MFA method name -> id. */
    readonly mfaMethods: Record<string, string>;
    /** Auth mount path -> accessor. */
    readonly authMounts: Record<string, string>;
    /** Identity entity name -> id. */
    readonly identityEntities: Record<string, string>;
    /** Identity group name -> id. */
    readonly identityGroups: Record<string, string>;
    /** Managed key name -> its UUID. */
    readonly managedKeys: Record<string, string>;
    /** Login enforcement name -> id. */
    readonly loginEnforcements: Record<string, string>;
  };
}

/** Runs `fn`; a library refusal becomes a {@link ScenarioDocumentError} at `path`. */
export function at<R>(path: readonly (string | number)[], fn: () => R, kind: "fixture" | "reference" = "fixture"): R {
  try {
    return fn();
  } catch (error) {
    if (error instanceof ScenarioDocumentError) throw error;
    if (error instanceof UsageError || isDomainError(error)) {
      throw new ScenarioDocumentError(kind, [{ path: pointer(path), expected: error.message.replace(/^infra-doubles: /, "") }]);
    }
    throw error;
  }
}

function reference(path: readonly (string | number)[], message: string): never {
  throw new ScenarioDocumentError("reference", [{ path: pointer(path), expected: message }]);
}

/** Resolves the document's names against the simulator's state (so a later document can name earlier fixtures too). */
export class NameResolver {
  constructor(
    private readonly target: ScenarioTarget,
    readonly names: ScenarioNames,
  ) {}

  private runsState(): Readonly<RunsState> {
    return this.target.sim.read<RunsState, Readonly<RunsState>>(RUNS, (ctx) => ctx.state);
  }

  /** `organization/name`, `name` (unique) or a `ws-...` id -> the workspace id. */
  workspace(ref: string, path: readonly (string | number)[]): string {
    const state = this.runsState();
    if (state.workspaces[ref] !== undefined) return ref;
    const slash = ref.indexOf("/");
    const matches = Object.values(state.workspaces).filter((w) =>
      slash < 0 ? w.name === ref : w.organization === ref.slice(0, slash) && w.name === ref.slice(slash + 1),
    );
    if (matches.length === 1) return matches[0]?.id ?? "";
    if (matches.length > 1) reference(path, `workspace "${ref}" is ambiguous: name it "organization/name" (${matches.map((w) => `${w.organization}/${w.name}`).join(", ")})`);
    return reference(path, `no workspace "${ref}" (define it under runs.workspaces)`);
  }

  /** A username or `user-...` id -> the user id. */
  user(ref: string, path: readonly (string | number)[]): string {
    const state = this.runsState();
    if (state.users[ref] !== undefined) return ref;
    const user = Object.values(state.users).find((u) => u.username === ref && !u.serviceAccount);
    return user?.id ?? reference(path, `no user "${ref}" (define it under runs.users)`);
  }

  /** A team name (in `organization`) or `team-...` id -> the team id. */
  team(ref: string, organization: string | undefined, path: readonly (string | number)[]): string {
    const state = this.runsState();
    if (state.teams[ref] !== undefined) return ref;
    const teams = Object.values(state.teams).filter((t) => t.name === ref && (organization === undefined || t.organization === organization));
    if (teams.length === 1) return teams[0]?.id ?? "";
    if (teams.length > 1) reference(path, `team "${ref}" is ambiguous: it exists in ${teams.map((t) => t.organization).join(", ")}`);
    return reference(path, `no team "${ref}" (define it under runs.teams)`);
  }

  /** A run name given by the timeline, or a `run-...` id. */
  run(ref: string, path: readonly (string | number)[]): string {
    const named = this.names.runs.runs[ref];
    if (named !== undefined) return named;
    if (ref.startsWith("run-") || ref.startsWith("cv-")) return ref;
    return reference(path, `no run named "${ref}" (name runs with queueRun.name or uploadConfiguration.name)`);
  }

  /** A workspace-keyed record with the keys resolved to ids. */
  workspaceLevels<V>(record: Readonly<Record<string, V>> | undefined, path: readonly (string | number)[]): Record<string, V> | undefined {
    if (record === undefined) return undefined;
    return Object.fromEntries(Object.entries(record).map(([ref, level]) => [this.workspace(ref, [...path, ref]), level]));
  }

  /** A runs token's document name -> its bearer value. */
  runsToken(name: string, path: readonly (string | number)[]): string {
    return this.names.runs.tokens[name] ?? reference(path, `no runs token named "${name}" (define it under runs.tokens)`);
  }

  aclToken(name: string, path: readonly (string | number)[]): { accessorId: string; secretId: string } {
    return this.names.accessControl.tokens[name] ?? reference(path, `no access-control token named "${name}" (define it under accessControl.tokens)`);
  }

  /**
   * A secrets fixture the document names (`what`: `mfaMethods`, `authMounts`, `identityGroups`,
   * `identityEntities`) -> its id or accessor; an id or accessor that exists passes as is.
   */
  secretsFixture(what: "mfaMethods" | "authMounts" | "identityGroups" | "identityEntities", ref: string, path: readonly (string | number)[]): string {
    const named = this.names.secrets[what][ref];
    if (named !== undefined) return named;
    // Made by an earlier document (or the control API): by id or accessor, else by name (path for mounts).
    const found = this.target.sim.read<SecretsState, string[]>(SECRETS, (ctx) => {
      const records: Readonly<Record<string, { readonly name?: string; readonly path?: string }>> = ctx.state[what];
      if (records[ref] !== undefined) return [ref];
      return Object.entries(records)
        .filter(([, record]) => (what === "authMounts" ? record.path === ref.replace(/^\/+|\/+$/g, "") : record.name === ref))
        .map(([id]) => id);
    });
    if (found.length === 1) return found[0] as string;
    if (found.length > 1) reference(path, `"${ref}" names ${found.length} secrets.${what} (in different namespaces): use the id or accessor`);
    const noun = { mfaMethods: "MFA method named", authMounts: "auth mount at path", identityGroups: "identity group named", identityEntities: "identity entity named" }[what];
    return reference(path, `no ${noun} "${ref}" (define it under secrets.${what})`);
  }

  secretsToken(name: string, path: readonly (string | number)[]): string {
    return this.names.secrets.tokens[name] ?? reference(path, `no secrets token named "${name}" (define it under secrets.tokens)`);
  }
}

/** `value` without its `undefined` fields. */
export const defined = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

/** Sets the node state from a document value (a state name or `{ state, ... }`). */
export function applyNodeState(target: ScenarioTarget, value: string | SecretsNodeStateFixture): void {
  if (typeof value === "string") target.secrets.setNodeState(value as SecretsNodeStateFixture["state"]);
  else {
    const { state, ...options } = value;
    target.secrets.setNodeState(state, defined({ ...options }));
  }
}

/**
 * Adds a fault; the fault set's refusal (a `TypeError` naming the field) becomes a
 * {@link ScenarioDocumentError} at `path`, down to the refused field when the refusal names one
 * (`/faults/0/until`).
 * @returns the fault's id.
 */
export function addFault(target: ScenarioTarget, fault: ScenarioFault, path: readonly (string | number)[]): string {
  try {
    return target.faults.add(fault as FaultDefinition).id;
  } catch (error) {
    if (error instanceof TypeError) {
      // The definition's own refusal names its field (`until`): the pointer goes down to it.
      const field = (error as FaultDefinitionError).field;
      throw new ScenarioDocumentError("fixture", [{ path: pointer(field === undefined ? path : [...path, field]), expected: error.message.replace(/^infra-doubles: /, "") }]);
    }
    throw error;
  }
}
