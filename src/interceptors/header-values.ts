/**
 * Response header values every transport can send. Node (and undici, behind `fetch`) refuse header
 * values outside Latin-1 and any control character; a value built from client input (a mount path
 * named in the nearest-endpoints header, a name echoed back) could otherwise kill the test process
 * through nock or answer 500 on the server, and a CR/LF could split the header block.
 *
 * See docs/decisions/transports.md ("Header values are percent-encoded").
 */

/** Characters sent as they are: printable ASCII and the space. */
const PLAIN = /^[\x20-\x7e]*$/;

/**
 * The value with every character outside printable ASCII (controls, CR/LF, tab, DEL, anything
 * beyond U+007E) replaced by the percent-escapes of its UTF-8 bytes, upper-case hex; printable ASCII
 * (including `%`) is left alone. `decodeURIComponent` reads the original back (a lone surrogate
 * becomes U+FFFD).
 * @param value - a header value as a service built it.
 * @returns a value made of printable ASCII only.
 * @example encodeHeaderValue("GET /v1/x💥/roles") // "GET /v1/x%F0%9F%92%A5/roles"
 */
export function encodeHeaderValue(value: string): string {
  if (PLAIN.test(value)) return value;
  let out = "";
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0x20 && code <= 0x7e) {
      out += char;
      continue;
    }
    for (const byte of Buffer.from(char, "utf8")) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * Longest header value sent, in characters after encoding. Clients refuse long header blocks
 * (undici: 16 KiB in all), so no value built from client input (a long path) may grow past this;
 * a longer value is cut and ends with `...`.
 */
export const MAX_HEADER_VALUE_LENGTH = 4096;

/** Whether `name` is an HTTP token (RFC 9110 section 5.6.2), as a header name must be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The headers with every value passed through {@link encodeHeaderValue} and cut to
 * {@link MAX_HEADER_VALUE_LENGTH} characters. A name that is not an HTTP
 * token (only code names headers; none takes a name from the client) is dropped rather than sent.
 * @example encodeHeaderValues({ "x-infra-doubles-nearest": "GET /v1/é" }) // { "x-infra-doubles-nearest": "GET /v1/%C3%A9" }
 */
export function encodeHeaderValues(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) continue;
    const encoded = encodeHeaderValue(String(value));
    out[name] = encoded.length > MAX_HEADER_VALUE_LENGTH ? `${encoded.slice(0, MAX_HEADER_VALUE_LENGTH - 3)}...` : encoded;
  }
  return out;
}
