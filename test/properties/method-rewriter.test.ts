import { METHODS } from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MethodRewriter } from "../../src/interceptors/socket-methods.js";
import { INTERNAL_HEADER, serialize, type WireRequest } from "../interceptors/wire.js";

const KNOWN = new Set(METHODS);

const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 40 }),
  fc.constantFrom("LIST / HTTP/1.1\r\n\r\n", "\r\n\r\n", "0\r\n\r\n", "Content-Length: 5\r\n").map((s) => new Uint8Array(Buffer.from(s))),
);

const request: fc.Arbitrary<WireRequest> = fc.record({
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "HEAD", "LIST", "PROPFIND", "SCAN-KEYS"),
  target: fc.stringMatching(/^\/[a-z0-9/?=&%.-]{0,20}$/),
  headers: fc.array(
    fc.tuple(fc.constantFrom("Host", "Accept", "X-Vault-Token", INTERNAL_HEADER, "X-Empty"), fc.stringMatching(/^[a-zA-Z0-9 ./:-]{0,12}$/).map((s) => s.trim())),
    { maxLength: 4 },
  ),
  body: fc.option(
    fc.oneof(
      bytes.map((b) => ({ kind: "length" as const, bytes: b })),
      fc.record({
        kind: fc.constant("chunked" as const),
        chunks: fc.array(bytes.filter((b) => b.length > 0), { maxLength: 3 }),
        extension: fc.option(fc.constantFrom("a=b", "x"), { nil: undefined }),
        trailers: fc.option(fc.array(fc.tuple(fc.constantFrom("X-Sum", "X-Trailer"), fc.constantFrom("1", "abc")), { maxLength: 2 }), { nil: undefined }),
      }),
    ),
    { nil: undefined },
  ),
  leadingEmptyLines: fc.integer({ min: 0, max: 1 }),
});

/** Cut points into `length` bytes, sorted and distinct. */
const cuts = (length: number): fc.Arbitrary<number[]> =>
  fc.uniqueArray(fc.integer({ min: 0, max: length }), { maxLength: 12 }).map((points) => [...points].sort((a, b) => a - b));

describe("the method rewriter, for any requests and any TCP chunking", () => {
  it("hands node:http exactly the rewritten requests, whatever the chunk boundaries", () => {
    fc.assert(
      fc.property(
        fc.array(request, { minLength: 1, maxLength: 4 }).chain((requests) => {
          const input = Buffer.concat(requests.map((r) => serialize(r)));
          return fc.tuple(fc.constant(requests), fc.constant(input), cuts(input.length));
        }),
        ([requests, input, points]) => {
          const rewriter = new MethodRewriter();
          const out: Buffer[] = [];
          let from = 0;
          for (const point of [...points, input.length]) {
            out.push(...rewriter.push(input.subarray(from, point)));
            from = point;
          }
          out.push(...rewriter.flush());
          const expected = Buffer.concat(requests.map((r) => serialize(r, true, KNOWN)));
          expect(Buffer.concat(out).toString("latin1")).toBe(expected.toString("latin1"));
          expect(rewriter.rewritten).toBe(requests.filter((r) => !KNOWN.has(r.method)).length);
          expect(rewriter.passingThrough).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
