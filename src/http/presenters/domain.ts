import type { DomainView } from '../../services/domains.js';

export function presentDomain(domain: DomainView) {
  return { hostname: domain.hostname, status: domain.status, cname_target: domain.cnameTarget };
}

export function presentDomainRegistered(domain: DomainView) {
  return {
    ...presentDomain(domain),
    instructions: `Add a DNS record: ${domain.hostname} CNAME ${domain.cnameTarget}. Folio checks it in the background (and whenever you GET the domain) and serves the blog on ${domain.hostname} once it points here.`,
  };
}
