// Test-only: a request as an API Gateway HTTP API hands it to a Lambda (payload format 2.0, as AWS
// documents it), for the tests of every Lambda entry that Hono's aws-lambda adapter serves.
import type { LambdaEvent } from "hono/aws-lambda";

export interface ApiGatewayRequest {
  method: string;
  /** The path, with its query string if any (`/api/v1/indexes?limit=5`). */
  path: string;
  /** A JSON-serializable body, or text sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** `requestContext.http.sourceIp`: the address API Gateway saw. Default 10.0.0.1. */
  sourceIp?: string;
  /** The route that matched. Default `ANY /api/v1/{proxy+}`. */
  routeKey?: string;
}

export function apiGatewayEvent(request: ApiGatewayRequest): LambdaEvent {
  const { method, body } = request;
  const [rawPath, rawQueryString = ""] = request.path.split("?") as [string, string?];
  const routeKey = request.routeKey ?? "ANY /api/v1/{proxy+}";
  return {
    version: "2.0",
    routeKey,
    rawPath,
    rawQueryString,
    headers: { host: "api.example.com", "content-type": "application/json", ...request.headers },
    requestContext: {
      accountId: "123456789012",
      apiId: "api",
      authentication: null,
      authorizer: {},
      domainName: "api.example.com",
      domainPrefix: "api",
      http: {
        method,
        path: rawPath,
        protocol: "HTTP/1.1",
        sourceIp: request.sourceIp ?? "10.0.0.1",
        userAgent: "test",
      },
      requestId: "id",
      routeKey,
      stage: "$default",
      time: "21/Nov/2026:12:00:00 +0000",
      timeEpoch: 1795348800000,
    },
    body: body === undefined ? null : typeof body === "string" ? body : JSON.stringify(body),
    isBase64Encoded: false,
  };
}
