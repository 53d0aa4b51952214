/**
 * No array a client sizes is spread into a call (issue 24, item 3): `f(...list)` passes each
 * element as an argument and throws RangeError past about 125,000 of them. A cloud role's policy
 * document (up to the 32 MiB body limit) can hold more statements than that.
 */
import { expect, it } from "vitest";
import { combinePolicyDocuments } from "../../src/simulator/secrets/cloud/cloud-account.js";

it("combines policy documents of 200,000 statements", () => {
  const statements = Array.from({ length: 200_000 }, (_, i) => ({ Effect: "Allow", Action: "s3:GetObject", Resource: `arn:aws:s3:::b/${i}` }));
  const combined = JSON.parse(combinePolicyDocuments([JSON.stringify({ Statement: statements }), '{"Statement":{"Effect":"Deny"}}'])) as { Statement: unknown[] };
  expect(combined.Statement).toHaveLength(200_001);
});
