// How a request to `{env}-AdminInternalApi` is authenticated. Cloud environments put the admin API
// behind an IAM-authorized API Gateway route (infra/src/search-stack.ts): every request is SigV4-signed
// (service `execute-api`, the environment's `awsRegion`) with credentials from the AWS default
// provider chain, and the admin token travels in `X-Admin-Token`, which the function's entry hands to
// the app as `Authorization: Bearer` (packages/relevance/admin/src/admin-token-header.ts). `local` is the app
// itself: `Authorization: Bearer <ADMIN_TOKEN>`.
import { defaultProvider } from "@aws-sdk/credential-provider-node";
import { Sha256 } from "@smithy/core/checksum";
import { SignatureV4 } from "@smithy/signature-v4";
import { UserError } from "../io.ts";

export const EXECUTE_API = "execute-api";
/** The header the function's entry reads the admin token from (packages/relevance/admin/src/admin-token-header.ts). */
export const ADMIN_TOKEN_HEADER = "x-admin-token";

export interface AdminRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface AdminAuth {
  kind: "bearer" | "sigv4";
  /** The request's headers with its authentication added. */
  headers(req: AdminRequest): Promise<Record<string, string>>;
}

type SignerOptions = ConstructorParameters<typeof SignatureV4>[0];
/** Credentials, or a provider of them (refreshed as they expire). */
export type AwsCredentials = SignerOptions["credentials"];
type SignableRequest = Parameters<SignatureV4["sign"]>[0];

export function bearerAuth(token: string): AdminAuth {
  return {
    kind: "bearer",
    headers: async (req) => ({ ...req.headers, authorization: `Bearer ${token}` }),
  };
}

export interface SigV4AuthOptions {
  token: string;
  /** The API's region (the environment's `awsRegion`). */
  region: string;
  credentials: AwsCredentials;
  /** The signing time; default the clock. */
  now?: () => Date;
}

export function sigV4Auth(opts: SigV4AuthOptions): AdminAuth {
  const signer = new SignatureV4({
    service: EXECUTE_API,
    region: opts.region,
    credentials: opts.credentials,
    sha256: Sha256,
  });
  const now = opts.now ?? (() => new Date());
  return {
    kind: "sigv4",
    async headers(req) {
      const url = new URL(req.url);
      const query: Record<string, string | string[]> = {};
      for (const [k, v] of url.searchParams) {
        const prev = query[k];
        query[k] = prev === undefined ? v : [...(Array.isArray(prev) ? prev : [prev]), v];
      }
      const request: SignableRequest = {
        method: req.method,
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port === "" ? {} : { port: Number(url.port) }),
        path: url.pathname,
        query,
        // The token is signed too: a captured request cannot be replayed with another one.
        headers: { ...req.headers, host: url.host, [ADMIN_TOKEN_HEADER]: opts.token },
        ...(req.body === undefined ? {} : { body: req.body }),
      };
      let signed: SignableRequest;
      try {
        signed = await signer.sign(request, { signingDate: now() });
      } catch (error) {
        throw new UserError(
          `cannot sign the admin API request: no AWS credentials (${(error as Error).message.split("\n")[0]}); ` +
            "set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, for the environment's account",
        );
      }
      // fetch sets Host itself, from the URL that was signed.
      const { host: _host, ...headers } = signed.headers;
      return headers;
    },
  };
}

/**
 * The authentication of an environment's admin API: SigV4 with the default provider chain for cloud
 * environments (`signing` is their region), the bearer token for `local`.
 */
export function adminAuthFor(
  signing: { region: string } | null,
  token: string,
  credentials: () => AwsCredentials = () => defaultProvider(),
): AdminAuth {
  return signing === null
    ? bearerAuth(token)
    : sigV4Auth({ token, region: signing.region, credentials: credentials() });
}
