/**
 * What proves that a registration's owner controls the hostname: a CNAME from the hostname to
 * the blog's subdomain (so the site can be served there) and a TXT record at
 * `_folio-challenge.<hostname>` holding the registration's own random token (so nobody can
 * verify a hostname on the strength of a CNAME someone else set up).
 */
import { randomBytes } from 'node:crypto';

/** The lookups the check needs; node:dns/promises `Resolver` has both (compose/adapters.ts). */
export interface DomainResolver {
  resolveCname(hostname: string): Promise<string[]>;
  /** Each record as its character strings (one record may be split into several). */
  resolveTxt(hostname: string): Promise<string[][]>;
}

export const CHALLENGE_LABEL = '_folio-challenge';
const VALUE_PREFIX = 'folio-verification=';

/** 128 random bits as 32 lower-case hex characters (the format migration 006 gives old rows). */
export function newChallengeToken(): string {
  return randomBytes(16).toString('hex');
}

export function challengeName(hostname: string): string {
  return `${CHALLENGE_LABEL}.${hostname}`;
}

/** The exact text the TXT record must hold. */
export function challengeValue(token: string): string {
  return `${VALUE_PREFIX}${token}`;
}

type Lookup<T> = { records: T[] } | { code: string };

/** Node reports "the name has no such record" as ENODATA and "the name does not exist" as ENOTFOUND. */
const MISSING = new Set(['ENODATA', 'ENOTFOUND']);

async function lookup<T>(query: () => Promise<T[]>): Promise<Lookup<T>> {
  try {
    return { records: await query() };
  } catch (err) {
    return { code: err instanceof Error && 'code' in err ? String(err.code) : String(err) };
  }
}

/**
 * What is wrong with the hostname's DNS for this registration, one sentence per problem; an
 * empty list means both records are in place.
 */
export async function challengeProblems(
  resolver: DomainResolver,
  registration: { hostname: string; challengeToken: string },
  cnameTarget: string,
): Promise<string[]> {
  const { hostname } = registration;
  const name = challengeName(hostname);
  const value = challengeValue(registration.challengeToken);
  const [cname, txt] = await Promise.all([lookup(() => resolver.resolveCname(hostname)), lookup(() => resolver.resolveTxt(name))]);
  const problems: string[] = [];
  if ('code' in cname) {
    problems.push(MISSING.has(cname.code) ? `no CNAME record at ${hostname}` : `CNAME lookup of ${hostname} failed: ${cname.code}`);
  } else if (!cname.records.some((record) => record.toLowerCase().replace(/\.$/, '') === cnameTarget)) {
    problems.push(cname.records.length ? `CNAME points at ${cname.records.join(', ')}, expected ${cnameTarget}` : `no CNAME record at ${hostname}`);
  }
  if ('code' in txt) {
    problems.push(MISSING.has(txt.code) ? `no TXT record at ${name}` : `TXT lookup of ${name} failed: ${txt.code}`);
  } else if (!txt.records.some((chunks) => chunks.join('').trim() === value)) {
    // A long record may arrive split into several strings; joined they form its text, as in SPF (RFC 7208 §3.3).
    problems.push(`no TXT record at ${name} is ${value}`);
  }
  return problems;
}
