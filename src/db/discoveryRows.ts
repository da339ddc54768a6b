/**
 * What the discovery index's implementations share (discoveryRepo.ts on SQLite,
 * postgresDiscoveryRepo.ts on PostgreSQL): the entry ids that order the results, and the hit
 * read from the live rows. The SQL here is the same text on both databases.
 */
import type { Language } from '../domain/language.js';
import type { DiscoveryHit } from '../search/discovery/ports.js';
import type { SqlTransaction } from './sql/sqlClient.js';

/** Posts published in the same second share this many entry ids (docs/search.md#discovery). */
const SLOTS_PER_SECOND = 2 ** 20;

/**
 * An entry id in the post's second (newest first is id order, descending), free in this
 * transaction: seconds × 2^20 plus the first slot after the second's last entry, so posts of the
 * same second sort in the order they were indexed, and a re-indexed (edited) post goes to the
 * front of its second.
 */
export async function freeId(tx: SqlTransaction, publishedAt: string): Promise<number> {
  const base = Math.floor(Date.parse(publishedAt) / 1000) * SLOTS_PER_SECOND;
  const last =
    (await tx.get<{ id: number | null }>('SELECT MAX(id) AS id FROM discovery_posts WHERE id BETWEEN ? AND ?', [base, base + SLOTS_PER_SECOND - 1]))?.id ??
    null;
  if (last === null) return base;
  if (last < base + SLOTS_PER_SECOND - 1) return last + 1;
  // A million posts in one second: this one sorts as the oldest rather than failing.
  return ((await tx.get<{ id: number | null }>('SELECT MIN(id) AS id FROM discovery_posts'))?.id ?? base) - 1;
}

/** The columns a hit is read from (posts `p`, blogs `b`, discovery_posts `d`). */
export const HIT_COLUMNS = `p.title, p.slug, p.meta_description, p.tags, d.lang, p.published_at, b.slug AS blog_slug, b.name AS blog_name,
        (SELECT hostname FROM domains WHERE blog_id = b.id) AS hostname, (SELECT status FROM domains WHERE blog_id = b.id) AS domain_status`;

export interface HitRow {
  title: string;
  slug: string;
  meta_description: string;
  tags: string;
  lang: Language;
  published_at: string;
  blog_slug: string;
  blog_name: string;
  hostname: string | null;
  domain_status: string | null;
}

export function toHit(row: HitRow): DiscoveryHit {
  return {
    title: row.title,
    slug: row.slug,
    metaDescription: row.meta_description,
    tags: JSON.parse(row.tags) as string[],
    lang: row.lang,
    publishedAt: row.published_at,
    blog: { slug: row.blog_slug, name: row.blog_name, customDomain: row.hostname, domainActive: row.domain_status === 'active' },
  };
}
