/**
 * A tiny secrets engine used to test the core machinery (routing, capabilities, leases, engine
 * moves) apart from the SSH and cloud engines.
 */
import { parseDuration } from "../../../src/simulator/kernel/duration.js";
import { DomainError } from "../../../src/simulator/kernel/errors.js";
import type { SecretsEngine } from "../../../src/simulator/secrets/engine.js";
import type { EngineHttp } from "../../../src/interceptors/secrets/engine-routes.js";
import { createSecretsPlugin } from "../../../src/scenarios/secrets/plugin.js";

export interface ItemsState {
  items: Record<string, { value: string; leaseId: string | null }>;
  ended: string[];
  ticks: number;
}

export const itemsEngine: SecretsEngine<ItemsState> = {
  type: "items",
  initialMountState: () => ({ items: {}, ended: [], ticks: 0 }),
  onLeaseEnd: (ctx, lease) => {
    delete ctx.mount.items[lease.ref];
    ctx.mount.ended.push(lease.id);
  },
  moves: {
    tick: (ctx, payload) => {
      ctx.mount.ticks += Number(payload);
    },
  },
};

const missing = (): DomainError => new DomainError({ code: "not_found", service: "secrets", operation: "read item", message: "" });

export const itemsHttp: EngineHttp<ItemsState> = {
  type: "items",
  routes: [
    {
      operations: ["list"],
      path: "/items",
      handler: (ctx) => ctx.read((c) => ({ kind: "data", data: { keys: Object.keys(c.mount.items).sort() } })),
    },
    {
      operations: ["read", "create-or-update", "delete"],
      path: "/items/:name",
      exists: (ctx) => ctx.read((c) => c.mount.items[ctx.params.name ?? ""] !== undefined),
      handler: (ctx) => {
        const name = ctx.params.name ?? "";
        if (ctx.operation === "read") {
          return ctx.read((c) => {
            const item = c.mount.items[name];
            if (!item) throw missing();
            return { kind: "data", data: { value: item.value } };
          });
        }
        if (ctx.operation === "delete") {
          ctx.update((c) => delete c.mount.items[name]);
          return { kind: "no-content" };
        }
        if (typeof ctx.body.value !== "string") {
          throw new DomainError({ code: "invalid", service: "secrets", operation: "write item", message: "missing value" });
        }
        const value = ctx.body.value;
        ctx.update((c) => {
          c.mount.items[name] = { value, leaseId: null };
        });
        return { kind: "no-content" };
      },
    },
    {
      operations: ["create-or-update"],
      path: "/lease/:name",
      handler: (ctx) => {
        const ttlMs = parseDuration(String(ctx.body.ttl ?? "1h"));
        return ctx.update((c) => {
          const name = ctx.params.name ?? "";
          const lease = c.issueLease({ idPath: `lease/${name}`, kind: "item", ref: name, ttlMs, renewable: ctx.body.renewable === true });
          c.mount.items[name] = { value: "leased", leaseId: lease.id };
          return { kind: "data", data: { name }, leaseId: lease.id, leaseDurationSeconds: ttlMs / 1000, renewable: lease.renewable };
        });
      },
    },
    {
      operations: ["create-or-update"],
      path: "/tick",
      handler: (ctx) => {
        ctx.update((c) => c.schedule(c.now + parseDuration(String(ctx.body.after ?? "1m")), "tick", Number(ctx.body.by ?? 1)));
        return { kind: "no-content" };
      },
    },
    {
      operations: ["read", "list", "create-or-update"],
      path: "/echo",
      handler: (ctx) => ({ kind: "data", data: ctx.operation === "list" ? { keys: Object.keys(ctx.body) } : { ...ctx.body } }),
    },
    {
      operations: ["read"],
      path: "/public",
      unauthenticated: true,
      handler: (ctx) => ({ kind: "raw", response: { status: 200, headers: { "content-type": "text/plain" }, body: `caller=${ctx.caller?.displayName ?? "none"}` } }),
    },
    {
      operations: ["create-or-update"],
      path: "/both/:name",
      capabilities: () => ["create", "update"],
      handler: () => ({ kind: "data", data: { ok: true }, warnings: ["be careful"] }),
    },
  ],
};

/** The secrets plugin with only the test engine, mounted at `items` (and a fixed root token). */
export function itemsPlugin() {
  return createSecretsPlugin({
    engines: { items: itemsEngine },
    engineHttp: { items: itemsHttp },
    defaultMounts: [{ path: "items", type: "items" }],
    rootToken: "root-token",
  });
}
