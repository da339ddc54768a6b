import type { DomainView } from '../../services/domains.js';

/**
 * Active: hostname, status, cname_target. Pending: also the TXT challenge, when the
 * registration lapses and why the last check did not verify it (null before any check).
 */
export function presentDomain(domain: DomainView) {
  const base = { hostname: domain.hostname, status: domain.status, cname_target: domain.cnameTarget };
  if (domain.status === 'active') return base;
  return {
    ...base,
    verification: { type: 'TXT' as const, name: domain.challenge.name, value: domain.challenge.value },
    expires_at: domain.expiresAt,
    last_error: domain.lastError,
  };
}

export function presentDomainRegistered(domain: DomainView) {
  return {
    ...presentDomain(domain),
    instructions:
      `Add two DNS records: ${domain.hostname} CNAME ${domain.cnameTarget}, and ${domain.challenge.name} TXT ${domain.challenge.value} ` +
      `(exactly this text; it proves you control the hostname). Folio checks them in the background (and whenever you GET the domain) ` +
      `and serves the blog on ${domain.hostname} once both are in place. The first blog to verify a hostname gets it; ` +
      `this registration expires unverified at ${domain.expiresAt}.`,
  };
}
