/**
 * Outgoing webhook requests never reach private networks (SSRF) unless the operator allows it
 * (FOLIO_WEBHOOKS_ALLOW_PRIVATE): every address a hostname resolves to must be public unicast.
 * Checked when a webhook is created and again at every delivery, and the request then connects
 * to the address that was checked (no second lookup a DNS rebinding could answer differently).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export class BlockedAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockedAddressError';
  }
}

/** The IPv4 address in `bytes` (4 of them), XORed with `mask` (Teredo obfuscates its client's). */
function ipv4Of(bytes: number[], mask = 0): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes.map((b) => b ^ mask));
}

const isPublicIpv4 = (address: ipaddr.IPv4): boolean => address.range() === 'unicast';

/**
 * IPv6 addresses that carry an IPv4 address reach that IPv4 host through a translator or tunnel
 * (or the host's own stack): they are public only when every IPv4 address they embed is.
 */
function isPublicIpv6(address: ipaddr.IPv6): boolean {
  const bytes = address.toByteArray();
  switch (address.range()) {
    case 'unicast':
      // IPv4-compatible (::a.b.c.d, deprecated by RFC 4291), NAT64 for local use (64:ff9b:1::/48,
      // RFC 8215, any embedding) and site-local (fec0::/10, deprecated, routed inside sites).
      if (bytes.slice(0, 12).every((b) => b === 0)) return false;
      if (address.match(ipaddr.IPv6.parse('64:ff9b:1::'), 48)) return false;
      if (address.match(ipaddr.IPv6.parse('fec0::'), 10)) return false;
      return true;
    case 'rfc6052':
      // NAT64's well-known prefix 64:ff9b::/96 (DNS64 answers it for IPv4-only names).
      return isPublicIpv4(ipv4Of(bytes.slice(12)));
    case '6to4':
      return isPublicIpv4(ipv4Of(bytes.slice(2, 6)));
    case 'teredo':
      // The Teredo server's address, and the client's, stored inverted.
      return isPublicIpv4(ipv4Of(bytes.slice(4, 8))) && isPublicIpv4(ipv4Of(bytes.slice(12), 0xff));
    default:
      // Loopback, link-local, unique-local, multicast, IPv4-translated (::ffff:0:a.b.c.d),
      // documentation, discard, reserved, unspecified.
      return false;
  }
}

/**
 * An IPv6 address with a dotted IPv4 tail in the URL standard's hex form: ipaddr.js reads
 * `::a.b.c.d` as `::ffff:a.b.c.d` (mapped), which is another address than the one connected to.
 */
function canonical(address: string): string {
  if (!address.includes(':') || !address.includes('.')) return address;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
}

/**
 * Public unicast only: not loopback, private, link-local, unique-local, CGNAT, multicast, reserved
 * or unspecified, nor an IPv6 address embedding an IPv4 address that is not public (mapped
 * `::ffff:`, compatible `::`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, Teredo `2001::/32`).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(canonical(address));
  if (parsed.kind() === 'ipv4') return isPublicIpv4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  // IPv4-mapped (::ffff:a.b.c.d): the IPv4 host itself.
  return v6.isIPv4MappedAddress() ? isPublicIpv4(v6.toIPv4Address()) : isPublicIpv6(v6);
}

/** The address to connect to for `url`'s host, after checking every address it resolves to. */
export async function resolveAllowed(url: URL, options: { lookup: Lookup; allowPrivate: boolean }): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(host)) addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  else {
    try {
      addresses = await options.lookup(host);
    } catch {
      throw new BlockedAddressError(`${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new BlockedAddressError(`${host} does not resolve`);
  if (!options.allowPrivate) {
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked)
      throw new BlockedAddressError(
        `${host} resolves to ${blocked.address}, a private, loopback or link-local address (set FOLIO_WEBHOOKS_ALLOW_PRIVATE=true to allow)`,
      );
  }
  return addresses[0]!;
}
