/**
 * The renewer as a long-lived process, for `infra-doubles soak`: reads the server from the
 * environment soak sets (`VAULT_ADDR`, `VAULT_TOKEN`, `INFRA_DOUBLES_SPEED`), gives the `cloud`
 * mount one-hour leases (as the service's operator would), then renews forever. `RENEW_AT` sets
 * the fraction of the TTL it waits (default 0.5).
 *
 *   npx infra-doubles soak --for 30d -- node dist/main.js
 */
import { LeaseRenewer } from "./lease-renewer.js";

const address = process.env.VAULT_ADDR ?? "http://127.0.0.1:8080";
const token = process.env.VAULT_TOKEN ?? "";
const speed = Number(process.env.INFRA_DOUBLES_SPEED ?? "1");
const baseUrl = `${address}/v1`;

const tune = await fetch(`${baseUrl}/sys/mounts/cloud/tune`, {
  method: "POST",
  headers: { "X-Vault-Token": token, "Content-Type": "application/json" },
  body: JSON.stringify({ default_lease_ttl: "1h", max_lease_ttl: "768h" }),
});
if (!tune.ok) throw new Error(`tune: ${tune.status}`);

const renewer = new LeaseRenewer({
  baseUrl,
  token,
  renewAt: Number(process.env.RENEW_AT ?? "0.5"),
  // Simulated ms to wall ms: soak runs the services' clock `speed` times faster.
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms / speed)),
});
await renewer.run();
