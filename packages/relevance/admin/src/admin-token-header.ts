/**
 * Behind the IAM-authorized HTTP API, a request's Authorization header carries the caller's SigV4
 * signature (checked by API Gateway before the function runs), so the admin bearer token travels in
 * `X-Admin-Token`. This hands the admin app the request as it expects it: the token as
 * `Authorization: Bearer <token>`, and never the signature (which the app would refuse anyway).
 */
export const ADMIN_TOKEN_HEADER = "x-admin-token";

type HeaderValue = string | string[] | undefined;

export function withAdminTokenHeader<E extends { headers?: Record<string, HeaderValue> }>(event: E): E {
  const headers: Record<string, HeaderValue> = {};
  let token: HeaderValue;
  let multi = false;
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (Array.isArray(value)) multi = true;
    const lower = name.toLowerCase();
    if (lower === ADMIN_TOKEN_HEADER) token = value;
    else if (lower !== "authorization") headers[name] = value;
  }
  const given = Array.isArray(token) ? token[0] : token;
  if (given !== undefined && given !== "") {
    // Events whose headers are lists (VPC Lattice) keep that shape.
    headers.authorization = multi ? [`Bearer ${given}`] : `Bearer ${given}`;
  }
  // Same event type: only the header values above changed, in the event's own shape.
  return { ...event, headers } as E;
}
