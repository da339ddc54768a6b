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

/** Public unicast only: not loopback, private, link-local, unique-local, CGNAT, multicast, reserved or unspecified. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
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
    if (blocked) throw new BlockedAddressError(`${host} resolves to ${blocked.address}, a private, loopback or link-local address (set FOLIO_WEBHOOKS_ALLOW_PRIVATE=true to allow)`);
  }
  return addresses[0]!;
}
