// LOCAL TEST DOUBLE of API Gateway IAM auth (tests only): an HTTP server standing in for the
// IAM-authorized `{env}-AdminInternalApi` route. It checks each request's SigV4 signature the way the
// gateway does, by signing the request again with `@smithy/signature-v4` (service execute-api, its own
// region, the secret key of the one identity it knows) and comparing, plus the payload hash and the
// clock skew; refusals are 403 with API Gateway's `{"message": …}` bodies. An accepted request goes to
// `upstream` as the function's entry hands it to the admin app: `X-Admin-Token` as the bearer token,
// the signature dropped (withAdminTokenHeader of packages/relevance/admin/src/admin-token-header.ts).
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { withAdminTokenHeader } from "@relevance/admin/admin-token-header";
import { Sha256 } from "@smithy/core/checksum";
import { SignatureV4 } from "@smithy/signature-v4";
import { EXECUTE_API } from "./admin-auth.ts";

export interface GatewayIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface IamGatewayDoubleOptions {
  region: string;
  /** The only principal allowed execute-api:Invoke. */
  identity: GatewayIdentity;
  /** The integration: the admin app (a fetch handler). */
  upstream: (request: Request) => Promise<Response> | Response;
}

export interface AcceptedRequest {
  method: string;
  path: string;
  /** The signed header names, as the Authorization header listed them. */
  signedHeaders: string[];
}

/** API Gateway accepts a signature within 5 minutes of its clock (AWS SigV4 documentation). */
const MAX_SKEW_MS = 5 * 60_000;
const AUTH_RE =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/;

/** Not passed to the integration: the gateway's own connection to the caller. */
const HOP_BY_HOP = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive"]);

function amzDate(value: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (m === null) return null;
  return new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
}

export class IamGatewayDouble {
  readonly accepted: AcceptedRequest[] = [];
  /** Refusals, by reason: what the tests assert on. */
  readonly refused: string[] = [];
  readonly #o: IamGatewayDoubleOptions;
  readonly #server: Server;
  readonly #signer: SignatureV4;

  private constructor(opts: IamGatewayDoubleOptions) {
    this.#o = opts;
    this.#signer = new SignatureV4({
      service: EXECUTE_API,
      region: opts.region,
      credentials: opts.identity,
      sha256: Sha256,
    });
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ message: `double failed: ${(error as Error).message}` }));
      });
    });
  }

  static async start(opts: IamGatewayDoubleOptions): Promise<IamGatewayDouble> {
    const d = new IamGatewayDouble(opts);
    await new Promise<void>((resolve) => d.#server.listen(0, "127.0.0.1", resolve));
    return d;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #refuse(res: ServerResponse, reason: string, message: string): void {
    this.refused.push(reason);
    res.writeHead(403, { "content-type": "application/json", "x-amzn-errortype": "AccessDeniedException" });
    res.end(JSON.stringify({ message }));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://gateway.invalid");
    const header = (name: string): string | undefined => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(",") : v;
    };

    const auth = AUTH_RE.exec(header("authorization") ?? "");
    if (auth === null) return this.#refuse(res, "unsigned", "Missing Authentication Token");
    const [, accessKey, day, region, service, signedList] = auth as unknown as string[];
    const { identity } = this.#o;
    if (accessKey !== identity.accessKeyId)
      return this.#refuse(res, "unknown key", "The security token included in the request is invalid.");
    const signedAt = amzDate(header("x-amz-date") ?? "");
    if (
      signedAt === null ||
      !signedAt
        .toISOString()
        .replace(/-/g, "")
        .startsWith(day as string)
    )
      return this.#refuse(
        res,
        "date",
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.",
      );
    if (Math.abs(Date.now() - signedAt.getTime()) > MAX_SKEW_MS)
      return this.#refuse(
        res,
        "expired",
        "Signature expired: the request time is too far from the server's.",
      );
    if (identity.sessionToken !== undefined && header("x-amz-security-token") !== identity.sessionToken)
      return this.#refuse(res, "session token", "The security token included in the request is invalid.");
    const signedHeaders = (signedList as string).split(";");
    for (const required of ["host", "x-amz-date"]) {
      if (!signedHeaders.includes(required))
        return this.#refuse(res, "unsigned header", `'${required}' must be a signed header.`);
    }
    const payloadHash = header("x-amz-content-sha256");
    if (payloadHash !== undefined && payloadHash !== createHash("sha256").update(body).digest("hex"))
      return this.#refuse(res, "payload", "The request body does not match its x-amz-content-sha256.");

    // The gateway's own computation: the same canonical request, signed with its key, region and service.
    const headers: Record<string, string> = {};
    for (const name of signedHeaders) headers[name] = header(name) ?? "";
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    const expected = await this.#signer.sign(
      {
        method: req.method ?? "GET",
        protocol: "http:",
        hostname: "127.0.0.1",
        path: url.pathname,
        query,
        headers,
        ...(body === "" ? {} : { body }),
      },
      { signingDate: signedAt },
    );
    if (
      region !== this.#o.region ||
      service !== EXECUTE_API ||
      expected.headers.authorization !== header("authorization")
    )
      return this.#refuse(
        res,
        "signature",
        "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.",
      );

    this.accepted.push({ method: req.method ?? "GET", path: url.pathname, signedHeaders });
    const forwarded = withAdminTokenHeader({ headers: { ...req.headers } }).headers;
    const init: RequestInit = {
      method: req.method ?? "GET",
      headers: Object.entries(forwarded).flatMap(([k, v]) =>
        v === undefined || k.toLowerCase().startsWith("x-amz-") || HOP_BY_HOP.has(k.toLowerCase())
          ? []
          : [[k, Array.isArray(v) ? v.join(",") : v]],
      ) as [string, string][],
      ...(body === "" ? {} : { body }),
    };
    const answer = await this.#o.upstream(
      new Request(`http://admin.internal${url.pathname}${url.search}`, init),
    );
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  }
}
