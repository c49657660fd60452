import { lookup } from "node:dns";
import ipaddr from "ipaddr.js";
import { Agent, fetch as undiciFetch } from "undici";

/**
 * The one outbound policy: every URL the console connects to on someone's say-so other than the
 * configuration file's (MCP servers an admin adds through the API or the UI) must name a public
 * unicast address. Loopback, link-local (169.254.169.254, the cloud metadata service), private,
 * unique-local, CGNAT, unspecified, broadcast, multicast, reserved, IPv4-mapped and
 * IPv4-embedding IPv6 forms are refused in any spelling — the URL parser has already turned
 * decimal (2852039166), hex (0xa9fea9fe) and octal forms into dotted quads, and
 * `[::ffff:169.254.169.254]` into `[::ffff:a9fe:a9fe]`, which is unmapped here before it is judged.
 * Names are judged by every address they resolve to, when added and again at connect time (the
 * agent's own lookup), so a name that resolves to a public address first and to 127.0.0.1 later
 * gets no connection. `outbound.allow` in idem.config.json lets a host name or an address range
 * (CIDR) through; URLs written in the file are the operator's word and pass as written.
 */
export type OutboundPolicy = { allow: readonly string[] };
export type OutboundCheck = { ok: true } | { ok: false; reason: string };

/** Cloud metadata services answer under these names too (GCP, AWS, Azure, …), whatever DNS says. */
const METADATA_HOSTS = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.internal",
]);

const RANGE_WORDS: Record<string, string> = {
  unspecified: "an unspecified",
  broadcast: "a broadcast",
  multicast: "a multicast",
  linkLocal: "a link-local (cloud metadata)",
  loopback: "a loopback",
  carrierGradeNat: "a carrier-grade NAT",
  private: "a private",
  uniqueLocal: "a unique-local (private)",
  reserved: "a reserved",
};

/** The host as the policy compares it: lower case, no brackets, no trailing dot. */
function normalHost(hostname: string): string {
  return hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
}

function allowedHost(host: string, policy: OutboundPolicy): boolean {
  return policy.allow.some((entry) => !entry.includes("/") && normalHost(entry) === host);
}

function allowedAddress(address: ipaddr.IPv4 | ipaddr.IPv6, policy: OutboundPolicy): boolean {
  for (const entry of policy.allow) {
    try {
      if (entry.includes("/")) {
        const [range, bits] = ipaddr.parseCIDR(entry);
        if (range.kind() === address.kind() && address.match(range, bits)) return true;
      } else if (ipaddr.isValid(entry) && ipaddr.process(entry).toString() === address.toString()) {
        return true;
      }
    } catch {
      // a malformed entry allows nothing (the config schema refuses them at start)
    }
  }
  return false;
}

/** Why an address may not be connected to; null when it is a public unicast address or allowed. */
export function addressRefusal(address: string, policy: OutboundPolicy): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  // process(): an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as the IPv4 address it is.
  const parsed = ipaddr.process(address);
  if (allowedAddress(parsed, policy)) return null;
  const range = parsed.range();
  if (range === "unicast") return null;
  return `${parsed.toString()} is ${RANGE_WORDS[range] ?? `a non-public (${range})`} address`;
}

/** Whether the console may connect to this URL: the scheme, the name, and every address it resolves to now. */
export async function checkOutboundUrl(
  urlText: string,
  policy: OutboundPolicy,
  resolve = resolveAll,
): Promise<OutboundCheck> {
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    return { ok: false, reason: "not a URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { ok: false, reason: `the scheme ${url.protocol} is not http or https` };
  const host = normalHost(url.hostname);
  if (allowedHost(host, policy)) return { ok: true };
  if (METADATA_HOSTS.has(host)) return { ok: false, reason: `${host} is a cloud metadata service` };
  if (ipaddr.isValid(host)) {
    const refusal = addressRefusal(host, policy);
    return refusal ? { ok: false, reason: refusal } : { ok: true };
  }
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    return { ok: false, reason: `${host} does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, reason: `${host} does not resolve` };
  for (const address of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal) return { ok: false, reason: `${host} resolves to ${refusal.replace(/ is /, ", which is ")}` };
  }
  return { ok: true };
}

function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    lookup(host, { all: true, verbatim: true }, (error, found) =>
      error ? reject(error) : resolve(found.map((f) => f.address)),
    ),
  );
}

/** The error a refused connection fails with: named so the console's messages can say what happened. */
export class OutboundRefusedError extends Error {
  readonly code = "EOUTBOUND";
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

/**
 * A fetch whose every connection is judged at connect time: the agent resolves names itself and
 * refuses an address the policy refuses, so DNS cannot rebind between the check and the connect.
 */
export function policyFetch(policy: OutboundPolicy): typeof fetch {
  const agent = new Agent({
    connect: {
      lookup(hostname: string, options: { all?: boolean }, callback: LookupCallback) {
        lookup(hostname, { all: true, verbatim: true }, (error, found) => {
          if (error) return callback(error, []);
          const refused = allowedHost(normalHost(hostname), policy)
            ? null
            : found.map((f) => addressRefusal(f.address, policy)).find((r) => r !== null);
          if (refused)
            return callback(
              Object.assign(
                new OutboundRefusedError(
                  `refused by the outbound policy: ${hostname} resolves to ${refused.replace(/ is /, ", which is ")}`,
                ),
                { code: "EOUTBOUND" },
              ),
              [],
            );
          if (options.all) return callback(null, found);
          const first = found[0]!;
          return callback(null, first.address, first.family);
        });
      },
    },
  });
  return ((input: string | URL | Request, init?: RequestInit) =>
    undiciFetch(input as never, { ...(init as object), dispatcher: agent } as never)) as unknown as typeof fetch;
}

/** A URL as people are shown it: no user name or password, and each query value replaced by "…". */
export function displayUrl(urlText: string): string {
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    return "(not a URL)";
  }
  url.username = "";
  url.password = "";
  const names = [...url.searchParams.keys()];
  url.search = "";
  const query = names.length > 0 ? `?${names.map((n) => `${encodeURIComponent(n)}=…`).join("&")}` : "";
  return `${url.origin}${url.pathname}${query}${url.hash ? "#…" : ""}`;
}
