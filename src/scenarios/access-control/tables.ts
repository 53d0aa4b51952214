/**
 * What the access-control service stores, as the read-only tables of
 * `GET /_sim/tables/accessControl/...` and the dashboard (`GET /_sim/ui`): tokens (with expiry and
 * time left; the SecretID masked unless revealed), policies, roles, auth methods and binding rules.
 * Policy and role links are shown by name, as the service's reads show them.
 */
import { pageRows, type StoredTable, type StoredTableColumn } from "../../interceptors/control.js";
import type { Simulator } from "../../simulator/kernel/simulator.js";
import { isoMillis } from "../../simulator/kernel/time.js";
import { ACCESS_CONTROL, type AccessControlState } from "../../simulator/access-control/state.js";

const TOKEN_COLUMNS: readonly StoredTableColumn[] = [
  { key: "accessorId", title: "AccessorID" },
  { key: "secretId", title: "SecretID", kind: "secret" },
  { key: "description", title: "Description" },
  { key: "policies", title: "Policies", kind: "list" },
  { key: "roles", title: "Roles", kind: "list" },
  { key: "authMethod", title: "Auth method" },
  { key: "namespace", title: "Namespace" },
  { key: "local", title: "Local" },
  { key: "expirationTime", title: "Expires", kind: "time" },
  { key: "timeLeft", title: "Time left", kind: "duration" },
  { key: "createTime", title: "Created", kind: "time" },
];

const POLICY_COLUMNS: readonly StoredTableColumn[] = [
  { key: "id", title: "ID" },
  { key: "name", title: "Name" },
  { key: "description", title: "Description" },
  { key: "datacenters", title: "Datacenters", kind: "list" },
  { key: "namespace", title: "Namespace" },
  { key: "rules", title: "Rules" },
];

const ROLE_COLUMNS: readonly StoredTableColumn[] = [
  { key: "id", title: "ID" },
  { key: "name", title: "Name" },
  { key: "description", title: "Description" },
  { key: "policies", title: "Policies", kind: "list" },
  { key: "namespace", title: "Namespace" },
];

const AUTH_METHOD_COLUMNS: readonly StoredTableColumn[] = [
  { key: "name", title: "Name" },
  { key: "type", title: "Type" },
  { key: "displayName", title: "Display name" },
  { key: "maxTokenTtl", title: "Max token TTL", kind: "duration" },
  { key: "tokenLocality", title: "Token locality" },
  { key: "namespace", title: "Namespace" },
];

const BINDING_RULE_COLUMNS: readonly StoredTableColumn[] = [
  { key: "id", title: "ID" },
  { key: "authMethod", title: "Auth method" },
  { key: "selector", title: "Selector" },
  { key: "bindType", title: "Bind type" },
  { key: "bindName", title: "Bind name" },
  { key: "description", title: "Description" },
  { key: "namespace", title: "Namespace" },
];

/**
 * The access-control service's tables over `sim`'s state: `tokens`, `policies`, `roles`,
 * `authMethods` and `bindingRules`, in creation order.
 * @example accessControlTables(doubles.sim).map((t) => t.name) // ["tokens", "policies", "roles", "authMethods", "bindingRules"]
 */
export function accessControlTables(sim: Simulator): readonly StoredTable[] {
  const read = <R>(fn: (state: Readonly<AccessControlState>, now: number) => R): R => sim.read<AccessControlState, R>(ACCESS_CONTROL, (ctx) => fn(ctx.state, ctx.now));
  const names = (state: Readonly<AccessControlState>, ids: readonly string[], from: "policies" | "roles"): string[] => ids.map((id) => state[from][id]?.name ?? id);
  return [
    {
      name: "tokens",
      title: "Tokens",
      columns: TOKEN_COLUMNS,
      page: (query) =>
        read((state, now) =>
          pageRows(Object.values(state.tokens), TOKEN_COLUMNS, query, (token) => ({
            accessorId: token.accessorId,
            secretId: token.secretId,
            description: token.description,
            policies: names(state, token.policies, "policies"),
            roles: names(state, token.roles, "roles"),
            authMethod: token.authMethod === "" ? null : token.authMethod,
            namespace: token.namespace,
            local: token.local,
            expirationTime: token.expirationTime === null ? null : isoMillis(token.expirationTime),
            timeLeft: token.expirationTime === null ? null : Math.max(0, token.expirationTime - now),
            createTime: isoMillis(token.createTime),
          })),
        ),
    },
    {
      name: "policies",
      title: "Policies",
      columns: POLICY_COLUMNS,
      page: (query) =>
        read((state) =>
          pageRows(Object.values(state.policies), POLICY_COLUMNS, query, (policy) => ({
            id: policy.id,
            name: policy.name,
            description: policy.description,
            datacenters: policy.datacenters,
            namespace: policy.namespace,
            rules: policy.rules,
          })),
        ),
    },
    {
      name: "roles",
      title: "Roles",
      columns: ROLE_COLUMNS,
      page: (query) =>
        read((state) =>
          pageRows(Object.values(state.roles), ROLE_COLUMNS, query, (role) => ({
            id: role.id,
            name: role.name,
            description: role.description,
            policies: names(state, role.policies, "policies"),
            namespace: role.namespace,
          })),
        ),
    },
    {
      name: "authMethods",
      title: "Auth methods",
      columns: AUTH_METHOD_COLUMNS,
      page: (query) =>
        read((state) =>
          pageRows(Object.values(state.authMethods), AUTH_METHOD_COLUMNS, query, (method) => ({
            name: method.name,
            type: method.type,
            displayName: method.displayName,
            maxTokenTtl: method.maxTokenTtlMs === 0 ? null : method.maxTokenTtlMs,
            tokenLocality: method.tokenLocality,
            namespace: method.namespace,
          })),
        ),
    },
    {
      name: "bindingRules",
      title: "Binding rules",
      columns: BINDING_RULE_COLUMNS,
      page: (query) =>
        read((state) =>
          pageRows(Object.values(state.bindingRules), BINDING_RULE_COLUMNS, query, (rule) => ({
            id: rule.id,
            authMethod: rule.authMethod,
            selector: rule.selector,
            bindType: rule.bindType,
            bindName: rule.bindName,
            description: rule.description,
            namespace: rule.namespace,
          })),
        ),
    },
  ];
}
