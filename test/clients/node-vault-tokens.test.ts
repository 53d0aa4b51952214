/**
 * node-vault 0.12's token calls (`tokenLookupSelf`, `tokenCreate`, `tokenRenewSelf`,
 * `tokenRevokeSelf`), configured as its README says, on every transport (issue 23 item 1: they
 * answered 404 `no handler for route` before the token auth method existed).
 */
import { createRequire } from "node:module";
import { expect, it } from "vitest";
import { createDoubles } from "../../src/index.js";
import { describeEachTransport } from "../support/transports.js";

interface TokenAuth {
  client_token: string;
  policies: string[];
  lease_duration: number;
}
interface VaultClient {
  tokenLookupSelf(): Promise<{ data: Record<string, unknown> }>;
  tokenCreate(options: Record<string, unknown>): Promise<{ auth: TokenAuth }>;
  tokenRenewSelf(options?: Record<string, unknown>): Promise<{ auth: TokenAuth }>;
  tokenRevokeSelf(): Promise<unknown>;
}
const nodeVault = createRequire(import.meta.url)("node-vault") as (options: { endpoint: string; token?: string }) => VaultClient;

describeEachTransport("node-vault token calls", (t) => {
  it("looks up, creates, renews and revokes tokens", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 9 }));
    const endpoint = base("secrets").replace(/\/v1$/, "");
    const root = nodeVault({ endpoint, token: doubles.secrets.rootToken });
    expect((await root.tokenLookupSelf()).data).toMatchObject({ policies: ["root"], display_name: "root", path: "auth/token/root" });
    const created = await root.tokenCreate({ policies: ["default"], ttl: "1h" });
    expect(created.auth).toMatchObject({ policies: ["default"], lease_duration: 3600 });
    const child = nodeVault({ endpoint, token: created.auth.client_token });
    doubles.advance("30m");
    expect((await child.tokenLookupSelf()).data).toMatchObject({ ttl: 1800, orphan: false });
    expect((await child.tokenRenewSelf({ increment: "2h" })).auth.lease_duration).toBe(7200);
    await child.tokenRevokeSelf();
    await expect(child.tokenLookupSelf()).rejects.toMatchObject({ response: { statusCode: 403 } });
  });
});
