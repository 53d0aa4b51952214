/**
 * The state of one cloud-account engine mount: root and lease configuration, roles (including
 * entries left by an earlier version), static roles, and the simulated cloud account the engine
 * manages (IAM users with their access keys, groups, assumable roles, temporary STS sessions).
 * Plain data: the simulator journals its writes for transactions and copies it for snapshots.
 *
 * Spec: secrets.md "Cloud-account engine"; FIDELITY.md "Secrets" (cloud credentials).
 */
import { dict, type Dict } from "../../kernel/dict.js";

/** The credential types a role may issue. */
export type CredentialType = "iam_user" | "assumed_role" | "federation_token";

/** Every credential type, in the spec's order. */
export const CREDENTIAL_TYPES: readonly CredentialType[] = Object.freeze(["iam_user", "assumed_role", "federation_token"]);

/** `config/root` as stored (`secretKey` is never returned by a read). */
export interface CloudRootConfig {
  accessKey: string;
  secretKey: string;
  /**
   * As written (empty when not given). Provider calls then go to the server environment's region
   * (`CloudAccount.serverRegion`), else `us-east-1`; see `providerRegion` in `root-config.ts`.
   */
  region: string;
  iamEndpoint: string;
  stsEndpoint: string;
  /** -1 means the SDK default. */
  maxRetries: number;
  /** Empty means the default template. */
  usernameTemplate: string;
}

/** `config/lease`: the lease of `iam_user` credentials. */
export interface CloudLeaseConfig {
  /** ms. */
  leaseMs: number;
  /** ms. */
  leaseMaxMs: number;
}

/** A role (`roles/:name`) as stored. */
export interface CloudRole {
  /** Usually one type; two (`iam_user`, `federation_token`) for a legacy inline-policy role. */
  credentialTypes: string[];
  policyArns: string[];
  roleArns: string[];
  /** Compacted JSON, or empty. */
  policyDocument: string;
  iamGroups: string[];
  iamTags: Record<string, string>;
  /** Seconds; 0 = unset. */
  defaultStsTtl: number;
  /** Seconds; 0 = unset. */
  maxStsTtl: number;
  /** Empty = unset (users are then created at `/`). */
  userPath: string;
  permissionsBoundaryArn: string;
  /** Data an earlier version stored that could not be understood (read shows it as `invalid_data`). */
  invalidData: string;
  /** Legacy roles: `creds` only gives `iam_user`, `sts` only the STS types. */
  prohibitFlexibleCredPath: boolean;
  version: number;
}

/** The credential a static role currently serves. */
export interface StaticCredential {
  accessKeyId: string;
  secretAccessKey: string;
  /** When it is next rotated, ms since the epoch. */
  rotatesAt: number;
}

/** A static role (`static-roles/:name`). */
export interface StaticRoleRecord {
  name: string;
  username: string;
  /** The IAM user id checked on every rotation (a re-created user with the same name is another user). */
  userId: string;
  /** Seconds. */
  rotationPeriod: number;
  credential: StaticCredential;
  /** The scheduled rotation move. */
  moveId: number;
  /** Why the last rotation failed (it is retried 10 s later), or empty. */
  lastRotationError: string;
}

/** An access key of a simulated IAM user. */
export interface IamAccessKey {
  accessKeyId: string;
  secretAccessKey: string;
  /** ms since the epoch. */
  createdAt: number;
  /** The key works from this time (propagation delay after creation), ms since the epoch. */
  usableFrom: number;
}

/** Who made an IAM user in the simulated account. */
export type IamUserOrigin = "scenario" | "dynamic" | "root";

/** A simulated IAM user. */
export interface IamUser {
  userName: string;
  userId: string;
  path: string;
  arn: string;
  createdAt: number;
  origin: IamUserOrigin;
  accessKeys: IamAccessKey[];
  attachedPolicyArns: string[];
  /** Inline policies by name (the role name for generated users). */
  inlinePolicies: Record<string, string>;
  groups: string[];
  tags: Record<string, string>;
  permissionsBoundaryArn: string;
}

/** A simulated IAM group (its policies filter STS credentials of roles listing it). */
export interface IamGroup {
  name: string;
  inlinePolicies: string[];
  policyArns: string[];
}

/** A declared assumable IAM role (undeclared role ARNs are assumable with the provider maximum). */
export interface IamRoleDeclaration {
  arn: string;
  /** Seconds (the provider allows 3600..43200). */
  maxSessionDuration: number;
  /** False: AssumeRole is denied. */
  assumable: boolean;
}

/** Temporary credentials issued by the simulated STS. */
export interface StsSession {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  kind: "assumed_role" | "federation_token";
  /** The assumed-role or federated-user ARN. */
  arn: string;
  /** The assumed role's ARN, or empty. */
  roleArn: string;
  /** Session or federated user name. */
  name: string;
  /** Effective inline policy (role document combined with group policies), or empty. */
  policyDocument: string;
  policyArns: string[];
  /** The region whose STS endpoint issued the session (the engine's provider region at issue time). */
  region: string;
  issuedAt: number;
  expiresAt: number;
}

/** Where the simulated server finds credentials when `config/root` has none. */
export type ServerCredentialSource = "environment" | "shared_credentials_file" | "instance_role";

/**
 * The server's ambient credential sources by precedence, highest first (spec: "Credential sources
 * by precedence, highest first: static payload credentials, server environment variables, shared
 * credentials files, assigned instance or task role credentials").
 */
export const SERVER_CREDENTIAL_PRECEDENCE: readonly ServerCredentialSource[] = Object.freeze(["environment", "shared_credentials_file", "instance_role"]);

/** The simulated cloud account one mount manages. */
export interface CloudAccount {
  /** 12 digits. */
  accountId: string;
  /** The IAM user that owns root credentials the account has never seen. */
  rootUserName: string;
  users: Dict<IamUser>;
  groups: Dict<IamGroup>;
  /** By ARN. */
  roles: Dict<IamRoleDeclaration>;
  /** By access key id. */
  sessions: Dict<StsSession>;
  /** Access key ids that existed and were deleted (they are refused, not adopted). */
  deletedAccessKeys: Dict<true>;
  /**
   * The user holding each access key, by access key id: an index of every user's `accessKeys`,
   * kept by the functions that add and remove keys (`cloud-account.ts`), so finding a key's owner
   * costs one lookup, not a walk over every user. Built from `users` when absent.
   */
  keyOwners?: Dict<string>;
  /** How many STS sessions `sessions` holds (counted from it when absent). */
  sessionCount?: number;
  /**
   * The session count at which the next sweep of expired sessions runs (see
   * `pruneExpiredSessions`): twice what the last sweep kept, 64 at the least.
   */
  sweepAt?: number;
  /**
   * Ambient credential sources the simulated server has (env variables, shared file, instance
   * role), in {@link SERVER_CREDENTIAL_PRECEDENCE} order; empty for none.
   */
  serverCredentials: ServerCredentialSource[];
  /** The simulated server's region environment (`AWS_REGION`, else `AWS_DEFAULT_REGION`), or empty. */
  serverRegion: string;
  /** How long a new root access key takes to work after `rotate-root`, ms. */
  keyPropagationMs: number;
}

/** One cloud engine mount's state. */
export interface CloudMountState {
  root: CloudRootConfig | null;
  lease: CloudLeaseConfig | null;
  roles: Dict<CloudRole>;
  /** Raw entries an earlier version stored (an inline policy or an ARN), upgraded on read. */
  legacyRoles: Dict<string>;
  staticRoles: Dict<StaticRoleRecord>;
  account: CloudAccount;
}

/** The default simulated account id. */
export const DEFAULT_ACCOUNT_ID = "123456789012";

/** The default name of the IAM user behind root credentials the account has never seen. */
export const DEFAULT_ROOT_USER_NAME = "secrets-root";

/**
 * A fresh mount: nothing configured, an empty account `123456789012`.
 * @example const state = initialCloudMountState(); state.account.accountId // "123456789012"
 */
export function initialCloudMountState(): CloudMountState {
  return {
    root: null,
    lease: null,
    roles: dict(),
    legacyRoles: dict(),
    staticRoles: dict(),
    account: {
      accountId: DEFAULT_ACCOUNT_ID,
      rootUserName: DEFAULT_ROOT_USER_NAME,
      users: dict(),
      groups: dict(),
      roles: dict(),
      sessions: dict(),
      deletedAccessKeys: dict(),
      keyOwners: dict(),
      serverCredentials: [],
      serverRegion: "",
      keyPropagationMs: 0,
    },
  };
}
