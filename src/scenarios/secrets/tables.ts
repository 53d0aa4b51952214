/**
 * What the secrets service stores, as the read-only tables of `GET /_sim/tables/secrets/...` and
 * the dashboard (`GET /_sim/ui`): tokens (the token itself masked unless revealed), mounts, leases
 * with the time they have left, SSH roles and live one-time passwords of every `ssh` mount (the
 * password masked unless revealed), and the node's state.
 */
import { pageRows, type StoredTable, type StoredTableColumn } from "../../interceptors/control.js";
import type { Simulator } from "../../simulator/kernel/simulator.js";
import { isoMillis } from "../../simulator/kernel/time.js";
import { SECRETS } from "../../simulator/secrets/errors.js";
import type { SshMountState, SshOtpRecord, SshRole } from "../../simulator/secrets/ssh/ssh-state.js";
import type { MountRecord, SecretsState } from "../../simulator/secrets/state.js";

const TOKEN_COLUMNS: readonly StoredTableColumn[] = [
  { key: "token", title: "Token", kind: "secret" },
  { key: "accessor", title: "Accessor" },
  { key: "displayName", title: "Display name" },
  { key: "policies", title: "Policies", kind: "list" },
  { key: "namespace", title: "Namespace" },
  { key: "path", title: "Created by" },
  { key: "parent", title: "Parent", kind: "secret" },
  { key: "renewable", title: "Renewable" },
  { key: "numUses", title: "Uses left" },
  { key: "expiresAt", title: "Expires", kind: "time" },
  { key: "timeLeft", title: "Time left", kind: "duration" },
  { key: "createdAt", title: "Created", kind: "time" },
];

const MOUNT_COLUMNS: readonly StoredTableColumn[] = [
  { key: "path", title: "Path" },
  { key: "type", title: "Type" },
  { key: "accessor", title: "Accessor" },
  { key: "uuid", title: "UUID" },
  { key: "description", title: "Description" },
  { key: "defaultLeaseTtl", title: "Default lease TTL", kind: "duration" },
  { key: "maxLeaseTtl", title: "Max lease TTL", kind: "duration" },
];

const LEASE_COLUMNS: readonly StoredTableColumn[] = [
  { key: "id", title: "Lease ID" },
  { key: "mount", title: "Mount" },
  { key: "kind", title: "Kind" },
  { key: "renewable", title: "Renewable" },
  { key: "issuedAt", title: "Issued", kind: "time" },
  { key: "lastRenewal", title: "Last renewal", kind: "time" },
  { key: "expiresAt", title: "Expires", kind: "time" },
  { key: "timeLeft", title: "Time left", kind: "duration" },
];

const SSH_ROLE_COLUMNS: readonly StoredTableColumn[] = [
  { key: "mount", title: "Mount" },
  { key: "name", title: "Name" },
  { key: "keyType", title: "Key type" },
  { key: "defaultUser", title: "Default user" },
  { key: "allowedUsers", title: "Allowed users" },
  { key: "cidrList", title: "CIDR list" },
  { key: "port", title: "Port" },
  { key: "ttl", title: "TTL", kind: "duration" },
  { key: "maxTtl", title: "Max TTL", kind: "duration" },
];

const OTP_COLUMNS: readonly StoredTableColumn[] = [
  { key: "mount", title: "Mount" },
  { key: "otp", title: "OTP", kind: "secret" },
  { key: "username", title: "Username" },
  { key: "ip", title: "IP" },
  { key: "role", title: "Role" },
  { key: "leaseId", title: "Lease ID" },
];

const NODE_COLUMNS: readonly StoredTableColumn[] = [
  { key: "state", title: "State", kind: "status" },
  { key: "unstable", title: "Unstable" },
  { key: "version", title: "Version" },
  { key: "clusterName", title: "Cluster" },
  { key: "clusterId", title: "Cluster ID" },
  { key: "replicationPerformanceMode", title: "Performance replication" },
];

/** The SSH engine's state of each `ssh` mount, by path. */
function sshMounts(state: Readonly<SecretsState>): { readonly path: string; readonly ssh: SshMountState }[] {
  return Object.values(state.mounts)
    .filter((mount: MountRecord) => mount.type === "ssh" && typeof mount.engineState === "object" && mount.engineState !== null)
    .map((mount) => ({ path: mount.path, ssh: mount.engineState as SshMountState }));
}

function when(at: number | null | undefined): string | null {
  return at === null || at === undefined ? null : isoMillis(at);
}

/**
 * The secrets service's tables over `sim`'s state: `tokens`, `mounts`, `leases` (soonest to end
 * first), `sshRoles`, `otps` and `node`.
 * @example secretsTables(doubles.sim).map((t) => t.name) // ["tokens", "mounts", "leases", "sshRoles", "otps", "node"]
 */
export function secretsTables(sim: Simulator): readonly StoredTable[] {
  const read = <R>(fn: (state: Readonly<SecretsState>, now: number) => R): R => sim.read<SecretsState, R>(SECRETS, (ctx) => fn(ctx.state, ctx.now));
  return [
    {
      name: "tokens",
      title: "Tokens",
      columns: TOKEN_COLUMNS,
      page: (query) =>
        read((state, now) =>
          pageRows(Object.values(state.tokens), TOKEN_COLUMNS, query, (token) => ({
            token: token.id,
            accessor: token.accessor,
            displayName: token.displayName,
            policies: token.policies,
            namespace: token.namespace,
            path: token.path ?? "auth/token/create",
            parent: token.parent ?? null,
            renewable: token.renewable ?? false,
            numUses: token.numUses === undefined || token.numUses === 0 ? null : Math.max(0, token.numUses),
            expiresAt: when(token.expiresAt),
            timeLeft: token.expiresAt === null ? null : Math.max(0, token.expiresAt - now),
            createdAt: isoMillis(token.createdAt),
          })),
        ),
    },
    {
      name: "mounts",
      title: "Mounts",
      columns: MOUNT_COLUMNS,
      page: (query) =>
        read((state) =>
          pageRows(Object.values(state.mounts), MOUNT_COLUMNS, query, (mount) => ({
            path: mount.path,
            type: mount.type,
            accessor: mount.accessor,
            uuid: mount.uuid,
            description: mount.description,
            defaultLeaseTtl: mount.defaultLeaseTtlMs === undefined || mount.defaultLeaseTtlMs === 0 ? null : mount.defaultLeaseTtlMs,
            maxLeaseTtl: mount.maxLeaseTtlMs === undefined || mount.maxLeaseTtlMs === 0 ? null : mount.maxLeaseTtlMs,
          })),
        ),
    },
    {
      name: "leases",
      title: "Leases",
      columns: LEASE_COLUMNS,
      page: (query) =>
        read((state, now) =>
          pageRows(
            Object.values(state.leases).sort((a, b) => a.expiresAt - b.expiresAt),
            LEASE_COLUMNS,
            query,
            (lease) => ({
              id: lease.id,
              mount: lease.mount,
              kind: lease.kind,
              renewable: lease.renewable,
              issuedAt: isoMillis(lease.issuedAt),
              lastRenewal: when(lease.lastRenewal),
              expiresAt: isoMillis(lease.expiresAt),
              timeLeft: Math.max(0, lease.expiresAt - now),
            }),
          ),
        ),
    },
    {
      name: "sshRoles",
      title: "SSH roles",
      columns: SSH_ROLE_COLUMNS,
      page: (query) =>
        read((state) =>
          pageRows(
            sshMounts(state).flatMap(({ path, ssh }) => Object.values(ssh.roles).map((role): [string, SshRole] => [path, role])),
            SSH_ROLE_COLUMNS,
            query,
            ([mount, role]) => ({
              mount,
              name: role.name,
              keyType: role.keyType,
              defaultUser: role.defaultUser,
              allowedUsers: role.allowedUsers,
              cidrList: role.cidrList,
              port: role.port,
              ttl: role.ttlMs === 0 ? null : role.ttlMs,
              maxTtl: role.maxTtlMs === 0 ? null : role.maxTtlMs,
            }),
          ),
        ),
    },
    {
      name: "otps",
      title: "SSH one-time passwords",
      columns: OTP_COLUMNS,
      page: (query) =>
        read((state) =>
          pageRows(
            sshMounts(state).flatMap(({ path, ssh }) => Object.entries(ssh.otps).map(([otp, record]): [string, string, SshOtpRecord] => [path, otp, record])),
            OTP_COLUMNS,
            query,
            ([mount, otp, record]) => ({ mount, otp, username: record.username, ip: record.ip, role: record.roleName, leaseId: record.leaseId }),
          ),
        ),
    },
    {
      name: "node",
      title: "Node",
      columns: NODE_COLUMNS,
      page: (query) =>
        read((state) =>
          pageRows([state.node], NODE_COLUMNS, query, (node) => ({
            state: node.state,
            unstable: node.unstable,
            version: node.version,
            clusterName: node.clusterName,
            clusterId: node.clusterId,
            replicationPerformanceMode: node.replicationPerformanceMode,
          })),
        ),
    },
  ];
}
