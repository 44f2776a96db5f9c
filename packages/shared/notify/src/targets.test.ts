import { describe, expect, it } from "vitest";
import { hostProblem, ipv6Groups, responseSnippet, urlTargetProblem } from "./targets.ts";

describe("urlTargetProblem: only http(s), never link-local or metadata addresses unless allowed", () => {
  it.each([
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "http://169.254.170.2/v2/credentials", // ECS task credentials
    "https://169.254.0.1:8443/x",
    "http://2852039166/", // 169.254.169.254 as one number
    "http://0xa9.0xfe.0xa9.0xfe/", // and in hex
    "http://0251.0376.0251.0376/", // and in octal
    "http://[fe80::1]/",
    "http://[febf::1]/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://[64:ff9b::169.254.169.254]/",
    // every IPv6 form that carries an IPv4 address a translator or tunnel would reach
    "http://[::ffff:0:a9fe:a9fe]/", // IPv4-translated (SIIT)
    "http://[::ffff:0:169.254.169.254]/",
    "http://[::a9fe:a9fe]/", // IPv4-compatible
    "http://[::100.100.100.200]/",
    "http://[64:ff9b::a9fe:a9fe]/", // NAT64, well-known prefix
    "http://[64:ff9b:1::a9fe:a9fe]/", // local-use NAT64 (/96 layout)
    "http://[64:ff9b:1:a9fe:a9:fe00::]/", // local-use NAT64, /48 layout around byte 8
    "http://[64:ff9b:1:0:a9:fea9:fe00:0]/", // /64 layout
    "http://[2002:a9fe:a9fe::1]/", // 6to4
    "http://[2002:a83f:8110::1]/", // 6to4 of 168.63.129.16 (Azure platform)
    "http://[2001:0:a9fe:a9fe::1]/", // Teredo server
    "http://[2001:0:4136:e378:8000:63bf:5601:5601]/", // Teredo client (XOR-ed 169.254.169.254)
    "http://[fd12::5efe:a9fe:a9fe]/", // ISATAP
    "http://[fd12::200:5efe:169.254.170.2]/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://METADATA.GOOGLE.INTERNAL./computeMetadata/v1/",
    "http://metadata/computeMetadata/v1/",
    "http://metadata.goog/",
    "http://instance-data/latest/meta-data/",
    "http://100.100.100.200/latest/meta-data/",
    "http://192.0.0.192/opc/v1/",
    "http://168.63.129.16/machine",
  ])("refuses %s", (url) => {
    const problem = urlTargetProblem(url);
    expect(problem).toMatch(/^refers to .*; set allowPrivateTargets: true on the channel to allow it$/);
    expect(urlTargetProblem(url, true)).toBeUndefined();
  });

  it.each([
    "https://hooks.slack.com/services/T/B/X",
    "http://127.0.0.1:8080/hook",
    "http://localhost/hook",
    "http://10.1.2.3/hook",
    "http://192.168.1.10/hook",
    "http://[::1]:9000/hook",
    "http://[fc00::1]/hook",
    "http://[fec0::1]/hook",
    "http://[::ffff:10.1.2.3]/hook", // embedded private addresses are judged as the address itself
    "http://[2002:c0a8:10a::1]/hook",
    "http://[64:ff9b::a00:1]/hook",
    "http://[2001:db8::a9fe:a9fe]/hook", // documentation prefix: nothing embedded
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook", // Teredo client 192.0.2.45
    "http://169.253.255.255/",
    "http://169.255.0.1/",
    "http://metadata.example.com/",
    "https://alerts.internal/metadata",
  ])("allows %s", (url) => {
    expect(urlTargetProblem(url)).toBeUndefined();
  });

  it.each([
    ["file:///etc/passwd", "must be an http or https URL"],
    ["ftp://example.com/x", "must be an http or https URL"],
    ["gopher://169.254.169.254/", "must be an http or https URL"],
    ["data:text/plain,hi", "must be an http or https URL"],
    ["javascript:alert(1)", "must be an http or https URL"],
    ["not a url", "not a valid URL"],
    ["", "required: an http(s) URL"],
  ])("refuses %s: %s, whatever the flag", (url, message) => {
    expect(urlTargetProblem(url)).toBe(message);
    expect(urlTargetProblem(url, true)).toBe(message);
  });
});

describe("hostProblem: an SMTP host is judged the same way", () => {
  it("refuses metadata and link-local hosts in any notation", () => {
    for (const host of [
      "169.254.169.254",
      "fe80::1",
      "[fd00:ec2::254]",
      "metadata.google.internal",
      "2852039166",
    ]) {
      expect(hostProblem(host), host).toMatch(/^refers to /);
      expect(hostProblem(host, true)).toBeUndefined();
    }
    expect(hostProblem("smtp.example.com")).toBeUndefined();
    expect(hostProblem("127.0.0.1")).toBeUndefined();
  });
});

describe("ipv6Groups", () => {
  it("expands compressed forms and a dotted IPv4 tail", () => {
    expect(ipv6Groups("fd00:ec2::254")).toEqual([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254]);
    expect(ipv6Groups("::ffff:1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(ipv6Groups("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(ipv6Groups("1::2::3")).toBeUndefined();
    expect(ipv6Groups("1:2:3")).toBeUndefined();
    expect(ipv6Groups("example.com")).toBeUndefined();
  });
});

describe("responseSnippet", () => {
  it("keeps at most 200 characters on one line, without reading an endless body", async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode("line\r\nof an answer that never ends "));
      },
    });
    const snippet = await responseSnippet(new Response(endless, { status: 500 }));
    expect(snippet.length).toBe(200);
    expect(snippet).not.toMatch(/[\r\n]/);
    expect(snippet.startsWith("line of an answer")).toBe(true);
    expect(pulled).toBeLessThan(100);
    expect(await responseSnippet(new Response(null, { status: 500 }))).toBe("");
  });
});
