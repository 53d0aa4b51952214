/**
 * The secrets service's pure simulator: state, tokens and policies, mounts, leases, node state and
 * health, managed keys, MFA login enforcement, and the engine contract.
 */
export type { Capability, Caller, EngineContext, Lease, SecretsEngine } from "./engine.js";
export { SECRETS_ENGINES, defaultMountsOf, type DefaultMount, type EngineRegistry } from "./engines.js";
export { DEFAULT_VERSION, secretsDefinition, type SecretsDefinitionOptions } from "./service.js";
export type * from "./state.js";
export { CAPABILITIES, DEFAULT_POLICY, capabilitiesOn, comparePatterns, parsePolicyRules, patternMatches, type Policy, type PolicyRule } from "./policies.js";
export { NODE_FLAGS, NODE_STATES, toNodeState, type NodeFlags, type NodeLicense, type NodeState, type NodeStateOptions, type NodeStatus } from "./node-state.js";
export { DEFAULT_HEALTH_CODES, healthBody, healthCode, healthCodeName, type HealthBody, type HealthCodeName, type HealthCodes, type HealthQuery } from "./health.js";
export { SYSTEM_DEFAULT_LEASE_TTL_MS, SYSTEM_MAX_LEASE_TTL_MS } from "./leases.js";
export { EC_CURVES, HASH_ALGORITHMS, generateKey, signAndVerify, type EcCurve, type KeySpec, type SignOptions } from "./managed-key-crypto.js";
export { MANAGED_KEY_TYPES, MANAGED_KEY_USAGES, type BackendKey, type KeyMaterial, type ManagedKeyBackends, type ManagedKeyParam, type ManagedKeyRecord, type ManagedKeyType } from "./managed-key-types.js";
export { KMSC_ALGORITHMS, PKCS11_MECHANISMS, RSA_KEY_BITS } from "./managed-keys.js";
export { MFA_METHOD_TYPES } from "./identity.js";
export type { LoginEnforcementView } from "./login-enforcement.js";
