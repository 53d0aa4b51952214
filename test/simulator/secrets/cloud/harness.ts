/**
 * A stand-alone engine context for unit tests of the cloud engine's rules: a mount state, a seeded
 * id source, a clock in ms, a lease table and a schedule whose due moves `advance()` runs through
 * the engine's own move handlers (no secrets core involved).
 */
import { IdSource } from "../../../../src/simulator/kernel/ids.js";
import { SYSTEM_MAX_LEASE_TTL_MS } from "../../../../src/simulator/secrets/leases.js";
import type { MovePayload } from "../../../../src/simulator/kernel/scheduler.js";
import type { Caller, EngineContext, Lease } from "../../../../src/simulator/secrets/engine.js";
import { cloudEngine } from "../../../../src/simulator/secrets/cloud/cloud-engine.js";
import type { CloudMountState } from "../../../../src/simulator/secrets/cloud/state.js";

export const START = Date.UTC(2024, 0, 1);

interface Move {
  id: number;
  at: number;
  kind: string;
  payload: MovePayload;
}

function caller(displayName: string): Caller {
  return { tokenId: "t", displayName, policies: ["root"], isRoot: true, capabilities: () => new Set() };
}

/** A harness over one fresh cloud mount. */
export function cloudHarness(seed: number | string = 1, displayName = "root") {
  const ids = new IdSource(seed);
  const mount: CloudMountState = cloudEngine.initialMountState();
  const leases = new Map<string, Lease>();
  const moves: Move[] = [];
  let now = START;
  let nextMove = 1;
  let leaseSeq = 0;
  const context = (): EngineContext<CloudMountState> => ({
    now,
    ids,
    mountPath: "cloud",
    mount,
    caller: caller(displayName),
    allowedManagedKeys: [],
    leaseTtls: { defaultMs: SYSTEM_MAX_LEASE_TTL_MS, maxMs: SYSTEM_MAX_LEASE_TTL_MS },
    issueLease: (input) => {
      const lease: Lease = { id: `cloud/${input.idPath}/${++leaseSeq}`, mount: "cloud", kind: input.kind, ref: input.ref, issuedAt: now, expiresAt: now + input.ttlMs, renewable: input.renewable ?? false };
      leases.set(lease.id, lease);
      return lease;
    },
    revokeLease: (id) => {
      const lease = leases.get(id);
      if (lease === undefined) return false;
      leases.delete(id);
      cloudEngine.onLeaseEnd?.(context(), lease);
      return true;
    },
    schedule: (at, kind, payload = null) => {
      const id = nextMove++;
      moves.push({ id, at: Math.max(at, now), kind, payload });
      return id;
    },
    cancel: (id) => {
      const index = moves.findIndex((m) => m.id === id);
      if (index < 0) return false;
      moves.splice(index, 1);
      return true;
    },
  });
  /** Moves time forward, ending leases and running engine moves at their own due times, in order. */
  const advance = (ms: number): void => {
    const target = now + ms;
    for (;;) {
      const dueMove = [...moves].sort((a, b) => a.at - b.at || a.id - b.id)[0];
      const dueLease = [...leases.values()].sort((a, b) => a.expiresAt - b.expiresAt)[0];
      const moveAt = dueMove && dueMove.at <= target ? dueMove.at : Infinity;
      const leaseAt = dueLease && dueLease.expiresAt <= target ? dueLease.expiresAt : Infinity;
      if (moveAt === Infinity && leaseAt === Infinity) break;
      if (leaseAt <= moveAt && dueLease) {
        now = leaseAt;
        leases.delete(dueLease.id);
        cloudEngine.onLeaseEnd?.(context(), dueLease);
      } else if (dueMove) {
        now = moveAt;
        moves.splice(moves.indexOf(dueMove), 1);
        cloudEngine.moves?.[dueMove.kind]?.(context(), dueMove.payload);
      }
    }
    now = target;
  };
  return { mount, ids, leases, moves, context, advance, now: () => now };
}
