/**
 * A test double of AWS STS over HTTP, on 127.0.0.1 (a free port): it speaks the wire format the
 * SDK's STSClient uses (the AWS query protocol: `POST /` with a form body `Action=AssumeRole&…`,
 * XML answers, errors as `<ErrorResponse><Error><Type/><Code/><Message/></Error>`), so a real client
 * pointed at it with `endpoint` runs its whole middleware stack, the retries included. Only
 * AssumeRole is answered; each request gets the answer the test's script gives it.
 */
import { startLocalHttpServer, xmlText } from "./http-double-server.ts";

export type StsDoubleAnswer =
  /** 200 with temporary credentials for the role, expiring at `expiration`. */
  | { credentials: true; expiration: Date }
  /** An error response as STS sends them. */
  | { status: number; code: string; message: string; type: "Sender" | "Receiver" };

/** STS's answer to too many requests (HTTP 400, Throttling). */
export const STS_THROTTLED: StsDoubleAnswer = {
  status: 400,
  code: "Throttling",
  message: "Rate exceeded",
  type: "Sender",
};

/** STS refusing the role (trust policy or external id): HTTP 403, AccessDenied. */
export function stsAccessDenied(roleArn: string): StsDoubleAnswer {
  return {
    status: 403,
    code: "AccessDenied",
    message: `User: arn:aws:sts::999999999999:assumed-role/svcmon-runtime/svcmon is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`,
    type: "Sender",
  };
}

export interface StsHttpDouble {
  /** `http://127.0.0.1:<port>`, for the client's `endpoint`. */
  endpoint: string;
  /** The form parameters of every request received, in order. */
  readonly requests: URLSearchParams[];
  close(): Promise<void>;
}

export async function startStsHttpDouble(
  script: (n: number, params: URLSearchParams) => StsDoubleAnswer,
): Promise<StsHttpDouble> {
  const requests: URLSearchParams[] = [];
  const server = await startLocalHttpServer((_req, res, body) => {
    const params = new URLSearchParams(body);
    requests.push(params);
    const n = requests.length;
    const requestId = `c6104cbe-af31-11e0-8154-${String(n).padStart(12, "0")}`;
    const answer: StsDoubleAnswer =
      params.get("Action") === "AssumeRole"
        ? script(n, params)
        : {
            status: 400,
            code: "InvalidAction",
            message: `the double does not play ${params.get("Action")}`,
            type: "Sender",
          };
    const headers = { "content-type": "text/xml", "x-amzn-requestid": requestId };
    if ("credentials" in answer) {
      const roleArn = params.get("RoleArn") ?? "";
      const session = params.get("RoleSessionName") ?? "";
      const account = roleArn.split(":")[4] ?? "";
      res.writeHead(200, headers);
      res.end(`<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <Credentials>
      <AccessKeyId>ASIAIOSFODNN7EXAMPLE</AccessKeyId>
      <SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY</SecretAccessKey>
      <SessionToken>AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQW</SessionToken>
      <Expiration>${answer.expiration.toISOString()}</Expiration>
    </Credentials>
    <AssumedRoleUser>
      <AssumedRoleId>AROA3XFRBF535PLBIFPI4:${xmlText(session)}</AssumedRoleId>
      <Arn>arn:aws:sts::${xmlText(account)}:assumed-role/svcmon-collector/${xmlText(session)}</Arn>
    </AssumedRoleUser>
    <PackedPolicySize>0</PackedPolicySize>
  </AssumeRoleResult>
  <ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata>
</AssumeRoleResponse>`);
      return;
    }
    res.writeHead(answer.status, headers);
    res.end(`<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <Error><Type>${answer.type}</Type><Code>${answer.code}</Code><Message>${xmlText(answer.message)}</Message></Error>
  <RequestId>${requestId}</RequestId>
</ErrorResponse>`);
  });
  return {
    endpoint: server.endpoint,
    requests,
    close: () => server.close(),
  };
}
