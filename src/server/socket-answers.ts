import type { Socket } from "node:net";

/**
 * The answers written to a socket itself, in Statewave's error envelope, where there is no route
 * or no request object to answer through: a body that stopped arriving, a request Node could not
 * parse or that timed out, a connection past the cap. The socket is closed right after each.
 */

/**
 * A raw HTTP/1.1 answer in Statewave's error envelope, for the answers written to the socket
 * itself (no route, no request object: the socket is closed right after).
 */
function rawErrorResponse(
  status: number,
  reason: string,
  error: { code: string; message: string },
  headers: readonly string[] = [],
): string {
  const body = JSON.stringify({ error });
  return [
    `HTTP/1.1 ${status} ${reason}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...headers,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/**
 * The raw 400 for a body that stopped arriving. Written to the socket itself: the route is still
 * waiting for the body, and the socket is closed right after.
 */
export function incompleteBodyResponse(idleMs: number): string {
  return rawErrorResponse(400, "Bad Request", {
    code: "request_body_incomplete",
    message: `The request body stopped arriving: no byte for ${idleMs} ms before its end (is it shorter than its Content-Length?)`,
  });
}

/**
 * Node's own answers to a request it could not parse or that timed out (it writes them without
 * a body), with the same status in Statewave's envelope: 408 for the header and request timeouts,
 * 431 for headers over Node's limit, 400 for anything else it cannot parse.
 */
export function clientErrorResponse(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return rawErrorResponse(408, "Request Timeout", {
        code: "request_timeout",
        message:
          "The request did not arrive in time (see serve's --headers-timeout and --request-timeout)",
      });
    case "HPE_HEADER_OVERFLOW":
      return rawErrorResponse(431, "Request Header Fields Too Large", {
        code: "headers_too_large",
        message: "The request's headers are larger than the server accepts (16 KiB)",
      });
    default:
      return rawErrorResponse(400, "Bad Request", {
        code: "bad_request",
        message: "The request is not valid HTTP/1.1",
      });
  }
}

/** `Retry-After` of the 503 a connection past the cap gets: the timeouts free slow sockets soon. */
const connectionCapRetryAfterSeconds = 1;

/** How long a refused connection may take to read its 503 before it is cut. */
const refusedConnectionLingerMs = 2000;

/**
 * Refused connections being answered at once; past this a refused connection is closed without
 * an answer, so that a flood cannot use up file descriptors through the refusals themselves.
 */
export const maxRefusalsInFlight = 64;

/**
 * Answers a connection past the cap with a 503 in Statewave's envelope and closes it. The socket
 * is half-closed and what the client still sends is read and dropped until it closes too (or
 * {@link refusedConnectionLingerMs}): closing a socket with unread input would send a reset,
 * which can destroy the answer before the client reads it.
 */
export function refuseConnection(socket: Socket, maxConnections: number): void {
  socket.on("error", () => undefined);
  socket.setTimeout(refusedConnectionLingerMs, () => socket.destroy());
  socket.end(
    rawErrorResponse(
      503,
      "Service Unavailable",
      {
        code: "service_unavailable",
        message: `The server has ${maxConnections} connections open, its limit (--max-connections); retry shortly`,
      },
      [`Retry-After: ${connectionCapRetryAfterSeconds}`],
    ),
  );
  socket.resume();
}
