/**
 * Test helper: an SSH engine context over a plain mount state, without the secrets core. Leases
 * are recorded in a list; `endLease` plays the core's lease expiry (calls the engine's onLeaseEnd).
 */
import { IdSource } from "../../../../src/simulator/kernel/ids.js";
import { SYSTEM_MAX_LEASE_TTL_MS } from "../../../../src/simulator/secrets/leases.js";
import type { Caller, Capability, EngineContext, Lease } from "../../../../src/simulator/secrets/engine.js";
import { sshEngine } from "../../../../src/simulator/secrets/ssh/ssh-engine.js";
import { initialSshMountState, type SshMountState } from "../../../../src/simulator/secrets/ssh/ssh-state.js";

/** A started engine context and its recorded leases. */
export interface TestMount {
  readonly ctx: EngineContext<SshMountState>;
  readonly mount: SshMountState;
  readonly leases: Lease[];
  readonly ids: IdSource;
  /** Ends a lease as the core would at expiry or revocation. */
  endLease(leaseId: string): void;
  /** A context at another time (same mount, ids and leases). */
  at(now: number, caller?: Caller): EngineContext<SshMountState>;
}

/** 2024-01-01T00:00:00Z in ms. */
export const T0 = Date.UTC(2024, 0, 1);

/** A caller with a display name and the given capabilities on every path. */
export function testCaller(displayName = "token-alice", capabilities: readonly Capability[] = ["create", "update"]): Caller {
  return {
    tokenId: "s.test",
    displayName,
    policies: ["test"],
    isRoot: false,
    capabilities: () => new Set(capabilities),
  };
}

/** A fresh mount `ssh` with seed `seed` at {@link T0}. */
export function testMount(seed: number | string = 1, caller: Caller | undefined = testCaller()): TestMount {
  const mount = initialSshMountState();
  const ids = new IdSource(seed);
  const leases: Lease[] = [];
  let counter = 0;
  const make = (now: number, who: Caller | undefined): EngineContext<SshMountState> => {
    const ctx: EngineContext<SshMountState> = {
      now,
      ids,
      mountPath: "ssh",
      mount,
      caller: who,
      allowedManagedKeys: [],
      leaseTtls: { defaultMs: SYSTEM_MAX_LEASE_TTL_MS, maxMs: SYSTEM_MAX_LEASE_TTL_MS },
      issueLease: (input) => {
        const lease: Lease = {
          id: `ssh/${input.idPath}/lease${++counter}`,
          mount: "ssh",
          kind: input.kind,
          ref: input.ref,
          issuedAt: now,
          expiresAt: now + input.ttlMs,
          renewable: input.renewable ?? false,
        };
        leases.push(lease);
        return lease;
      },
      revokeLease: (leaseId) => {
        const lease = leases.find((l) => l.id === leaseId);
        if (lease === undefined) return false;
        leases.splice(leases.indexOf(lease), 1);
        sshEngine.onLeaseEnd?.(ctx, lease);
        return true;
      },
      schedule: () => 0,
      cancel: () => false,
    };
    return ctx;
  };
  const ctx = make(T0, caller);
  return {
    ctx,
    mount,
    leases,
    ids,
    endLease: (leaseId) => void ctx.revokeLease(leaseId),
    at: (now, who = caller) => make(now, who),
  };
}
