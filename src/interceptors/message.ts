/**
 * The request and response shapes every transport (nock, the node:http server, a direct call)
 * converts to and from. Their own module so that the handler contract (`http.ts`) and the fault
 * contract (`faults.ts`) can both use them without importing each other.
 */

/** A request as the fake sees it, whatever transport carried it. */
export interface SimRequest {
  /** Upper-case method (`GET`, `LIST`, ...). */
  readonly method: string;
  /** The full URL, including origin and query. */
  readonly url: URL;
  /** Header names in lower case; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The exact request bytes (empty when there is no body). */
  readonly body: Uint8Array;
  /** Aborted when the client goes away (long-polling reads stop waiting). */
  readonly signal?: AbortSignal;
  /**
   * Set by a transport that stopped reading the body at the service's
   * `RequestBodyLimit` (http.ts; `body` is then empty): the handler answers the service's 413.
   */
  readonly bodyTooLarge?: boolean;
}

/** A response from the fake. */
export interface SimResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A string is sent as UTF-8. `undefined` sends no body. */
  readonly body?: string | Uint8Array;
  /**
   * A body produced piece by piece instead of `body` (the `/_sim/journal` answer): the local server
   * writes each piece as it comes (chunked, no `Content-Length`), waiting for the socket to drain
   * and yielding to the event loop between pieces, so a long body never holds other requests up.
   * Served by the local server only (the control API exists there only).
   */
  readonly stream?: () => Iterable<string>;
  /**
   * Set by a fault: the transport drops the connection instead of sending this answer (`reset`:
   * the connection is reset; `hang-up`: closed before any answer). Status, headers and body are
   * then not sent.
   */
  readonly drop?: "reset" | "hang-up";
  /** Facts for this request's journal entry, never sent (see `JournalEntry` in journal.ts). */
  readonly journal?: {
    /** An upload whose archive was read: the paths of its regular files, in archive order. */
    readonly configurationFiles?: readonly string[];
  };
}
