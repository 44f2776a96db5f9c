/**
 * What the HTTP doubles of AWS services share (sqs-, sts- and ec2-http-double.ts): a `node:http`
 * server on 127.0.0.1 (a free port) that reads each request's whole body before handing it to the
 * double, and a close that drops kept-alive connections (the SDK keeps them open).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface LocalHttpServer {
  /** `http://127.0.0.1:<port>`, for a client's `endpoint`. */
  endpoint: string;
  close(): Promise<void>;
}

export async function startLocalHttpServer(
  handle: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<LocalHttpServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** Text for an XML element's content (the query protocols' answers). */
export const xmlText = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
