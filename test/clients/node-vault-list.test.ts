/**
 * node-vault's `list()` sends `LIST` through axios (node:http). Under nock it used to wait forever:
 * @mswjs/interceptors' request parser refused the method. Configured as node-vault's README says
 * (`require("node-vault")({ endpoint, token })`: it sends `X-Vault-Token`), on every transport.
 */
import { createRequire } from "node:module";
import { expect, it } from "vitest";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { describeEachTransport } from "../support/transports.js";

interface VaultClient {
  list(path: string): Promise<{ data: { keys: string[] } }>;
  write(path: string, data: unknown): Promise<unknown>;
}
type VaultFactory = (config: { endpoint: string; token: string }) => VaultClient;

const nodeVault = createRequire(import.meta.url)("node-vault") as VaultFactory;

describeEachTransport("node-vault list()", (t) => {
  it("lists SSH roles with LIST, and answers an empty list as the real service does", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 11 }));
    const endpoint = base("secrets").replace(/\/v1$/, "");
    const token = doubles.secrets.rootToken;
    const vault = nodeVault({ endpoint, token });
    await expect(vault.list("ssh/roles")).rejects.toMatchObject({ response: { statusCode: 404 } });
    for (const name of ["web", "db"]) await vault.write(`ssh/roles/${name}`, { key_type: "ca", allow_user_certificates: true });
    const listed = await vault.list("ssh/roles");
    expect(listed.data.keys).toEqual(["db", "web"]);
    const lists = doubles.handler.journal.filter((entry) => entry.method === "LIST");
    if (t.name !== "server") expect(lists.map((entry) => entry.status)).toEqual([404, 200]);
  });
});
