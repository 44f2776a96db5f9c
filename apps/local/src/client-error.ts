import type { Socket } from "node:net";

/** Node's HTTP parser codes for requests it refuses before any route sees them, and their answers. */
const ANSWERS: Record<string, [number, string, string, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    "Request Header Fields Too Large",
    "headers_too_large",
    "the request headers are larger than the limit of 16 KiB",
  ],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [
    413,
    "Payload Too Large",
    "payload_too_large",
    "a chunk extension is too large",
  ],
};

/**
 * Node answers requests its parser refuses (headers over 16 KiB, malformed request lines) itself,
 * as plain text; this answers them with the JSON error body every route uses, then closes.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] = ANSWERS[err.code ?? ""] ?? [
    400,
    "Bad Request",
    "bad_request",
    "the request is not valid HTTP/1.1",
  ];
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
