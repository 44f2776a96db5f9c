/**
 * A test double of Amazon EC2 over HTTP, on 127.0.0.1 (a free port): it speaks the wire format the
 * SDK's EC2Client uses (the EC2 query protocol: `POST /` with a form body
 * `Action=DescribeInstances&Version=2016-11-15&…`, XML answers in the
 * `http://ec2.amazonaws.com/doc/2016-11-15/` namespace, errors as
 * `<Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>`), so a real
 * client pointed at it with `endpoint` runs its whole middleware stack, the retries included. It is
 * not EC2: only DescribeInstances (`reservationSet`, `nextToken`) and DescribeRegions (`regionInfo`)
 * are answered, each request with the answer the test's script gives it, and an instance carries
 * only the fields the collectors read.
 */

import type { Instance } from "@aws-sdk/client-ec2";
import { startLocalHttpServer, xmlText } from "./http-double-server.ts";

export type Ec2DoubleAnswer =
  /** 200, a DescribeInstances page: one reservation per instance, `nextToken` when more follow. */
  | { instances: Instance[]; nextToken?: string }
  /** 200, a DescribeRegions answer: these regions, enabled. */
  | { regions: string[] }
  /** An error response as EC2 sends them. */
  | { status: number; code: string; message: string };

/** EC2's answer to too many requests (HTTP 503, RequestLimitExceeded). */
export const EC2_REQUEST_LIMIT_EXCEEDED: Ec2DoubleAnswer = {
  status: 503,
  code: "RequestLimitExceeded",
  message: "Request limit exceeded.",
};

/** EC2 refusing an action the role's policy does not allow (HTTP 403, UnauthorizedOperation). */
export function ec2UnauthorizedOperation(action: string): Ec2DoubleAnswer {
  return {
    status: 403,
    code: "UnauthorizedOperation",
    message: `You are not authorized to perform this operation. User: arn:aws:sts::111111111111:assumed-role/svcmon-collector/svcmon-collector is not authorized to perform: ec2:${action} because no identity-based policy allows the ec2:${action} action`,
  };
}

/** A bad request (HTTP 400, InvalidParameterValue). */
export function ec2InvalidParameterValue(message: string): Ec2DoubleAnswer {
  return { status: 400, code: "InvalidParameterValue", message };
}

export interface Ec2HttpDouble {
  /** `http://127.0.0.1:<port>`, for the client's `endpoint`. */
  endpoint: string;
  /** The form parameters of every request received, in order. */
  readonly requests: URLSearchParams[];
  close(): Promise<void>;
}

const NS = "http://ec2.amazonaws.com/doc/2016-11-15/";

/** `<name>value</name>`, or nothing when the value is absent. */
function el(name: string, value: string | number | boolean | Date | undefined | null): string {
  if (value === undefined || value === null) return "";
  const text = value instanceof Date ? value.toISOString() : String(value);
  return `<${name}>${xmlText(text)}</${name}>`;
}

/** An EC2 list: `<name><item>…</item>…</name>`. */
function set<T>(name: string, items: readonly T[] | undefined, item: (x: T) => string): string {
  if (items === undefined) return "";
  return `<${name}>${items.map((x) => `<item>${item(x)}</item>`).join("")}</${name}>`;
}

/** The fields of an instance the collectors read, named as DescribeInstances names them. */
function instanceXml(i: Instance): string {
  return [
    el("instanceId", i.InstanceId),
    el("imageId", i.ImageId),
    i.State ? `<instanceState>${el("code", i.State.Code)}${el("name", i.State.Name)}</instanceState>` : "",
    el("instanceType", i.InstanceType),
    el("launchTime", i.LaunchTime),
    i.Placement
      ? `<placement>${el("availabilityZone", i.Placement.AvailabilityZone)}${el("groupName", i.Placement.GroupName)}${el("tenancy", i.Placement.Tenancy)}</placement>`
      : "",
    el("platform", i.Platform),
    el("subnetId", i.SubnetId),
    el("vpcId", i.VpcId),
    el("privateIpAddress", i.PrivateIpAddress),
    el("architecture", i.Architecture),
    el("instanceLifecycle", i.InstanceLifecycle),
    el("platformDetails", i.PlatformDetails),
    set(
      "blockDeviceMapping",
      i.BlockDeviceMappings,
      (m) =>
        el("deviceName", m.DeviceName) +
        (m.Ebs
          ? `<ebs>${el("volumeId", m.Ebs.VolumeId)}${el("status", m.Ebs.Status)}${el("attachTime", m.Ebs.AttachTime)}${el("deleteOnTermination", m.Ebs.DeleteOnTermination)}</ebs>`
          : ""),
    ),
    set("tagSet", i.Tags, (t) => el("key", t.Key) + el("value", t.Value)),
  ].join("");
}

function describeInstancesXml(requestId: string, instances: Instance[], nextToken?: string): string {
  const reservations = instances
    .map(
      (i, n) =>
        `<item><reservationId>r-0${n}1234567890abcdef</reservationId><ownerId>111111111111</ownerId><groupSet/><instancesSet><item>${instanceXml(i)}</item></instancesSet></item>`,
    )
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>
<DescribeInstancesResponse xmlns="${NS}">
  <requestId>${requestId}</requestId>
  <reservationSet>${reservations}</reservationSet>${nextToken === undefined ? "" : `\n  ${el("nextToken", nextToken)}`}
</DescribeInstancesResponse>`;
}

function describeRegionsXml(requestId: string, regions: string[]): string {
  const items = regions
    .map(
      (r) =>
        `<item>${el("regionName", r)}${el("regionEndpoint", `ec2.${r}.amazonaws.com`)}<optInStatus>opt-in-not-required</optInStatus></item>`,
    )
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>
<DescribeRegionsResponse xmlns="${NS}">
  <requestId>${requestId}</requestId>
  <regionInfo>${items}</regionInfo>
</DescribeRegionsResponse>`;
}

/**
 * Starts the double. `script(n, params)` answers the n-th request (1-based) of DescribeInstances or
 * DescribeRegions; any other action gets `InvalidAction` (HTTP 400), as does an answer that does not
 * fit the action asked.
 */
export async function startEc2HttpDouble(
  script: (n: number, params: URLSearchParams) => Ec2DoubleAnswer,
): Promise<Ec2HttpDouble> {
  const requests: URLSearchParams[] = [];
  const server = await startLocalHttpServer((req, res, body) => {
    const params = new URLSearchParams(body);
    requests.push(params);
    const n = requests.length;
    const requestId = `59dbff89-35bd-4eac-99ed-${String(n).padStart(12, "0")}`;
    const action = params.get("Action");
    const invalid = (why: string): Ec2DoubleAnswer => ({
      status: 400,
      code: "InvalidAction",
      message: why,
    });
    let answer =
      req.method === "POST" && (action === "DescribeInstances" || action === "DescribeRegions")
        ? script(n, params)
        : invalid(`the double does not play ${req.method} ${action}`);
    if ("instances" in answer && action !== "DescribeInstances")
      answer = invalid(`a DescribeInstances answer to ${action}`);
    if ("regions" in answer && action !== "DescribeRegions")
      answer = invalid(`a DescribeRegions answer to ${action}`);
    const headers = { "content-type": "text/xml;charset=UTF-8", "x-amzn-requestid": requestId };
    if ("instances" in answer) {
      res.writeHead(200, headers);
      res.end(describeInstancesXml(requestId, answer.instances, answer.nextToken));
      return;
    }
    if ("regions" in answer) {
      res.writeHead(200, headers);
      res.end(describeRegionsXml(requestId, answer.regions));
      return;
    }
    res.writeHead(answer.status, headers);
    res.end(`<?xml version="1.0" encoding="UTF-8"?>
<Response><Errors><Error><Code>${xmlText(answer.code)}</Code><Message>${xmlText(answer.message)}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`);
  });
  return {
    endpoint: server.endpoint,
    requests,
    close: () => server.close(),
  };
}
