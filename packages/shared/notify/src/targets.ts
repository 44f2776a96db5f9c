/**
 * Which hosts a notification may be sent to. A channel's target comes from configuration, but an
 * alert must never become a way to read a cloud's instance metadata (credentials) or other
 * link-local services, so those addresses are refused unless the channel says
 * `allowPrivateTargets: true`. Checked when the config is validated and again before every send.
 *
 * Only the literal address and the well-known metadata host names are judged: no DNS lookup is made,
 * so a name that resolves to a metadata address is not caught here (docs/notifications.md). Loopback
 * and RFC 1918 addresses are allowed: an in-house receiver is a normal target.
 */

/** The config flag that lifts the refusal, named in every refusal message. */
export const ALLOW_PRIVATE_TARGETS = "allowPrivateTargets";

/** Host names that answer with instance metadata on the clouds we know. Lower case, no trailing dot. */
export const METADATA_HOSTNAMES: ReadonlySet<string> = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
]);

/** Single IPv4 addresses of metadata and platform services outside 169.254.0.0/16. */
const METADATA_IPV4: ReadonlySet<string> = new Set([
  "100.100.100.200", // Alibaba Cloud metadata
  "192.0.0.192", // Oracle Cloud metadata (legacy)
  "168.63.129.16", // Azure platform (WireServer)
]);

function ipv4Octets(host: string): number[] | undefined {
  const parts = host.split(".");
  if (parts.length !== 4) return undefined;
  const octets = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : Number.NaN));
  return octets.every((o) => o >= 0 && o <= 255) ? octets : undefined;
}

/** The eight 16-bit groups of an IPv6 address (without brackets; a dotted IPv4 tail allowed), or undefined. */
export function ipv6Groups(host: string): number[] | undefined {
  let text = host.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  const lastColon = text.lastIndexOf(":");
  if (lastColon < 0) return undefined;
  const last = text.slice(lastColon + 1);
  if (last.includes(".")) {
    const v4 = ipv4Octets(last);
    if (v4 === undefined) return undefined;
    const [o0, o1, o2, o3] = v4 as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((o0 << 8) | o1).toString(16)}:${((o2 << 8) | o3).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (s: string): number[] | undefined => {
    if (s === "") return [];
    const groups = s.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? Number.parseInt(g, 16) : Number.NaN));
    return groups.every((g) => !Number.isNaN(g)) ? groups : undefined;
  };
  const head = parse(halves[0] as string);
  const rest = halves.length === 2 ? parse(halves[1] as string) : [];
  if (head === undefined || rest === undefined) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  if (head.length + rest.length > 7) return undefined;
  return [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
}

function v4Problem(octets: number[]): string | undefined {
  const dotted = octets.join(".");
  if (octets[0] === 169 && octets[1] === 254) return `${dotted} is a link-local address (169.254.0.0/16)`;
  if (METADATA_IPV4.has(dotted)) return `${dotted} is a cloud metadata address`;
  return undefined;
}

/** The four bytes at positions `at` of an IPv6 address's 16, as IPv4 octets. */
function v4At(bytes: readonly number[], at: readonly number[]): number[] {
  return at.map((i) => bytes[i] as number);
}

/**
 * The IPv4 addresses an IPv6 address may carry, each with the form that carries it: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), NAT64
 * (`64:ff9b::/96`, and the local-use `64:ff9b:1::/48` at every RFC 6052 prefix length, where the
 * address may sit around the reserved byte 8), 6to4 (`2002:AABB:CCDD::/48`), Teredo (`2001:0::/32`:
 * the server in bytes 4-7, the client XOR-ed in the last four) and ISATAP (`…:0:5efe:a.b.c.d`). A
 * translator or tunnel on the way turns any of them into a packet to that IPv4 address.
 */
function embeddedV4(g: readonly number[]): Array<{ form: string; octets: number[] }> {
  const bytes = g.flatMap((x) => [x >> 8, x & 0xff]);
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = g;
  const last = v4At(bytes, [12, 13, 14, 15]);
  const out: Array<{ form: string; octets: number[] }> = [];
  if (a === 0 && b === 0 && c === 0 && d === 0) {
    if (e === 0 && (f === 0xffff || f === 0))
      out.push({ form: "an IPv4-mapped or -compatible", octets: last });
    if (e === 0xffff && f === 0) out.push({ form: "an IPv4-translated", octets: last });
  }
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0)
    out.push({ form: "a NAT64", octets: last });
  if (a === 0x64 && b === 0xff9b && c === 1) {
    // RFC 6052 layouts for prefixes of 48, 56, 64 and 96 bits inside 64:ff9b:1::/48.
    for (const at of [
      [6, 7, 9, 10],
      [7, 9, 10, 11],
      [9, 10, 11, 12],
      [12, 13, 14, 15],
    ])
      out.push({ form: "a local-use NAT64", octets: v4At(bytes, at) });
  }
  if (a === 0x2002) out.push({ form: "a 6to4", octets: v4At(bytes, [2, 3, 4, 5]) });
  if (a === 0x2001 && b === 0) {
    out.push({ form: "a Teredo server", octets: v4At(bytes, [4, 5, 6, 7]) });
    out.push({ form: "a Teredo client", octets: last.map((o) => o ^ 0xff) });
  }
  if ((e === 0 || e === 0x200) && f === 0x5efe) out.push({ form: "an ISATAP", octets: last });
  return out;
}

function v6Problem(g: number[]): string | undefined {
  const [a = 0, b = 0] = g;
  if ((a & 0xffc0) === 0xfe80) return "a link-local IPv6 address (fe80::/10)";
  if (a === 0xfd00 && b === 0x0ec2) return "the AWS instance-services IPv6 range (fd00:ec2::/32)";
  for (const { form, octets } of embeddedV4(g)) {
    const p = v4Problem(octets);
    if (p !== undefined) return `${form} IPv6 form of ${p}`;
  }
  return undefined;
}

/**
 * Why `host` (a URL's `hostname`, or an SMTP host) is not an allowed target, or undefined. Numeric
 * forms (`0xa9fea9fe`, `2852039166`, `[::ffff:169.254.169.254]`) are judged by the address they mean.
 */
export function hostProblem(host: string, allowPrivateTargets = false): string | undefined {
  if (allowPrivateTargets) return undefined;
  let name = host.trim().toLowerCase();
  if (name.startsWith("[") && name.endsWith("]")) name = name.slice(1, -1);
  // Normalised as a URL parser (and so the resolver) reads it: 2852039166 → 169.254.169.254.
  if (!name.includes(":")) {
    try {
      name = new URL(`http://${name}/`).hostname;
    } catch {
      return "is not a valid host name";
    }
  }
  name = name.replace(/\.+$/, "");
  const refuse = (what: string) =>
    `refers to ${what}, which notifications are not sent to; set ${ALLOW_PRIVATE_TARGETS}: true on the channel to allow it`;
  if (METADATA_HOSTNAMES.has(name)) return refuse(`the cloud metadata host ${name}`);
  const v4 = ipv4Octets(name);
  if (v4 !== undefined) {
    const p = v4Problem(v4);
    return p === undefined ? undefined : refuse(p);
  }
  const v6 = ipv6Groups(name);
  if (v6 !== undefined) {
    const p = v6Problem(v6);
    return p === undefined ? undefined : refuse(p);
  }
  return undefined;
}

/** Why `url` is not an allowed HTTP target (scheme, then host), or undefined. Never repeats the URL. */
export function urlTargetProblem(url: unknown, allowPrivateTargets = false): string | undefined {
  if (typeof url !== "string" || url === "") return "required: an http(s) URL";
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "not a valid URL";
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return "must be an http or https URL";
  return hostProblem(u.hostname, allowPrivateTargets);
}

/** At most this much of what a target answers is kept in an error, a log line or the delivery log. */
export const MAX_RESPONSE_SNIPPET_CHARS = 200;

const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;

/**
 * The first `maxChars` characters of a response body, read without holding more than a few KiB of
 * it (a target may answer with an endless body), control characters replaced by spaces so it stays
 * one log line. The rest of the body is cancelled. Never throws.
 */
export async function responseSnippet(res: Response, maxChars = MAX_RESPONSE_SNIPPET_CHARS): Promise<string> {
  const body = res.body;
  if (body === null) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const maxBytes = maxChars * 4;
  let text = "";
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // what was read so far is enough for the message
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return Array.from(text.replace(CONTROL, " ").trim()).slice(0, maxChars).join("");
}
