/**
 * `/sys/managed-keys/:type` (LIST), `/sys/managed-keys/:type/:name` (create or update, read,
 * delete) and `/sys/managed-keys/:type/:name/test/sign`. Root namespace only.
 *
 * Spec: secrets.md "Managed keys (root namespace only)", "Managed key (read form)".
 */
import {
  GENERIC_FIELDS,
  TYPE_FIELDS,
  deleteManagedKey,
  findManagedKey,
  listManagedKeys,
  managedKeyType,
  managedKeyView,
  testSign,
  writeManagedKey,
  type FieldKind,
  type ManagedKeyValues,
} from "../../simulator/secrets/managed-keys.js";
import type { ManagedKeyType } from "../../simulator/secrets/managed-key-types.js";
import type { CoreRoute, CoreRouteContext } from "./core-route.js";
import { boolField, intField, stringField, stringListField } from "./request.js";

function readField(body: Readonly<Record<string, unknown>>, field: string, kind: FieldKind): ManagedKeyValues[string] | undefined {
  switch (kind) {
    case "string":
      return stringField(body, field);
    case "int":
      return intField(body, field);
    case "bool":
      return boolField(body, field);
    case "list":
      return stringListField(body, field);
  }
}

/** Reads the write parameters of `type` from a request body by the fields' kinds. */
export function managedKeyValues(type: ManagedKeyType, body: Readonly<Record<string, unknown>>): ManagedKeyValues {
  const values: Record<string, ManagedKeyValues[string]> = {};
  for (const [field, kind] of Object.entries({ ...GENERIC_FIELDS, ...TYPE_FIELDS[type] })) {
    const value = readField(body, field, kind);
    if (value !== undefined) values[field] = value;
  }
  return values;
}

function typeOf(ctx: CoreRouteContext, operation: string): ManagedKeyType {
  return managedKeyType(ctx.params.type ?? "", operation);
}

/** The managed key routes (root namespace only). */
export const MANAGED_KEY_ROUTES: readonly CoreRoute[] = Object.freeze([
  {
    operations: ["list"],
    path: "/sys/managed-keys/:type",
    rootNamespaceOnly: true,
    handler: (ctx) => {
      const type = typeOf(ctx, "list managed keys");
      return ctx.read((c) => ({ kind: "data", data: { keys: listManagedKeys(c, type) } }));
    },
  },
  {
    operations: ["read", "create-or-update", "delete"],
    path: "/sys/managed-keys/:type/:name",
    rootNamespaceOnly: true,
    exists: (ctx) => ctx.read((c) => c.state.managedKeys[ctx.params.name ?? ""] !== undefined),
    handler: (ctx) => {
      const name = ctx.params.name ?? "";
      if (ctx.operation === "read") {
        const type = typeOf(ctx, "read managed key");
        return ctx.read((c) => ({ kind: "data", data: managedKeyView(findManagedKey(c.state, type, name, "read managed key")) }));
      }
      if (ctx.operation === "delete") {
        const type = typeOf(ctx, "delete managed key");
        ctx.update((c) => deleteManagedKey(c, type, name));
        return { kind: "no-content" };
      }
      const type = typeOf(ctx, "write managed key");
      const values = managedKeyValues(type, ctx.body);
      ctx.update((c) => writeManagedKey(c, type, name, values));
      return { kind: "no-content" };
    },
  },
  {
    operations: ["create-or-update"],
    path: "/sys/managed-keys/:type/:name/test/sign",
    rootNamespaceOnly: true,
    handler: (ctx) => {
      const type = typeOf(ctx, "test-sign managed key");
      const usePss = boolField(ctx.body, "use_pss") ?? false;
      const hashAlgorithm = stringField(ctx.body, "hash_algorithm") || "sha2-256";
      ctx.update((c) => testSign(c, type, ctx.params.name ?? "", { usePss, hashAlgorithm }));
      return { kind: "no-content" };
    },
  },
]);
