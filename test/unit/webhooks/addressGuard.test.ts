import { describe, expect, it } from 'vitest';
import { isPublicAddress, resolveAllowed } from '../../../src/webhooks/addressGuard.js';

const noLookup = async () => {
  throw new Error('no lookup expected for an address literal');
};

describe('the webhook address guard', () => {
  it('refuses IPv6 addresses that embed a loopback or private IPv4 address', () => {
    for (const address of [
      '::127.0.0.1', // IPv4-compatible (deprecated): what the audit sent
      '::7f00:1',
      '::10.0.0.1',
      '::8.8.8.8', // IPv4-compatible at all: deprecated, never a real destination
      '::ffff:127.0.0.1', // IPv4-mapped
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '::ffff:0:127.0.0.1', // IPv4-translated
      '64:ff9b::127.0.0.1', // NAT64 well-known prefix
      '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
      '64:ff9b::192.168.1.1',
      '64:ff9b:1::8.8.8.8', // NAT64 local-use prefix: any embedding
      '2002:7f00:1::1', // 6to4 of 127.0.0.1
      '2002:c0a8:101::1', // 6to4 of 192.168.1.1
      '2001:0:7f00:1::1', // Teredo whose server is 127.0.0.1
      '2001:0:4136:e378:8000:63bf:f5ff:fffe', // Teredo whose client is 10.0.0.1 (inverted)
      'fec0::1', // site-local
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it('accepts public IPv4 and IPv6 addresses, also embedded in NAT64, 6to4 and Teredo', () => {
    for (const address of [
      '93.184.216.34',
      '2606:2800:220:1:248:1893:25c8:1946',
      '64:ff9b::5db8:d822',
      '2002:5db8:d822::1',
      '2001:0:4136:e378:8000:63bf:a247:27dd',
    ]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it('refuses the URL http://[::127.0.0.1]/ (the URL parser writes its host as ::7f00:1)', async () => {
    const url = new URL('http://[::127.0.0.1]/');
    expect(url.hostname).toBe('[::7f00:1]');
    await expect(resolveAllowed(url, { lookup: noLookup, allowPrivate: false })).rejects.toThrow(/private, loopback/);
    await expect(resolveAllowed(new URL('http://[64:ff9b::7f00:1]/'), { lookup: noLookup, allowPrivate: false })).rejects.toThrow(/private, loopback/);
  });
});
