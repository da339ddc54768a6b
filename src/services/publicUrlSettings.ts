/**
 * One set of public URL settings per data dir. FOLIO_SERVICE_DOMAIN and FOLIO_PUBLIC_SCHEME are
 * baked into every rendered page, so a process that renders with other values (the CLI run
 * without the server's environment, which defaulted to `localhost:3000`) rewrites every blog
 * with wrong links. The server records the values it runs with; every other process uses the
 * recorded ones, and a deliberate change (restarting the server with a new value) re-renders
 * every blog.
 */
import type { BlogsRepo } from '../db/blogsRepo.js';
import { URLS_CHANGED, type JobsRepo } from '../db/jobsRepo.js';
import type { SettingsRepo } from '../db/settingsRepo.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import type { Logger } from '../lib/logger.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { defaultPublicScheme, withPublicUrls, type Config } from '../config/config.js';
import type { PublicScheme } from '../domain/siteUrls.js';

/** `server` records and may change the settings; `cli` only reads what the server recorded. */
export type PublicUrlMode = 'server' | 'cli';

export interface PublicUrlSettingsDeps {
  sql: SqlClient;
  settings: SettingsRepo;
  blogs: BlogsRepo;
  jobs: JobsRepo;
  clock: Clock;
  logger: Logger;
}

/**
 * The CLI was given a value that differs from the one the server recorded. It refuses rather than
 * pick one: with the recorded value it would not do what the operator typed, and with the typed
 * one it would render pages that disagree with the server (the bug this module fixes).
 */
export class PublicUrlConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PublicUrlConflictError';
  }
}

const KEYS = { serviceDomain: 'service_domain', publicScheme: 'public_scheme' } as const;

interface Recorded {
  serviceDomain: string;
  publicScheme: PublicScheme;
}

async function readRecorded(settings: SettingsRepo): Promise<Recorded | null> {
  const serviceDomain = await settings.get(KEYS.serviceDomain);
  const publicScheme = await settings.get(KEYS.publicScheme);
  if (serviceDomain === null || (publicScheme !== 'http' && publicScheme !== 'https')) return null;
  return { serviceDomain, publicScheme };
}

/** The config every part of this process must use (SiteUrls, domains, the site server). */
export async function resolvePublicUrlSettings(deps: PublicUrlSettingsDeps, config: Config, mode: PublicUrlMode): Promise<Config> {
  const recorded = await readRecorded(deps.settings);
  return mode === 'server' ? settleForServer(deps, config, recorded) : settleForCli(config, recorded);
}

function settleForCli(config: Config, recorded: Recorded | null): Config {
  // No server has run on this data dir yet: nothing to agree with.
  if (!recorded) return config;
  const conflicts: string[] = [];
  if (config.explicit.serviceDomain && config.serviceDomain !== recorded.serviceDomain) {
    conflicts.push(`FOLIO_SERVICE_DOMAIN=${config.serviceDomain} differs from ${recorded.serviceDomain} recorded by the server`);
  }
  if (config.explicit.publicScheme && config.publicScheme !== recorded.publicScheme) {
    conflicts.push(`FOLIO_PUBLIC_SCHEME=${config.publicScheme} differs from ${recorded.publicScheme} recorded by the server`);
  }
  if (conflicts.length > 0) {
    throw new PublicUrlConflictError(
      `${conflicts.join('; ')}; to change public URLs, restart the server with the new value (it re-renders every blog), or run this command without the variable to use the recorded value`,
    );
  }
  return withPublicUrls(config, recorded);
}

async function settleForServer(deps: PublicUrlSettingsDeps, config: Config, recorded: Recorded | null): Promise<Config> {
  const serviceDomain = config.explicit.serviceDomain ? config.serviceDomain : (recorded?.serviceDomain ?? config.serviceDomain);
  // The scheme's default follows the domain: a recorded default `http` of `localhost:3000` must
  // not stick to a new public domain, whose default is `https`.
  const publicScheme = config.explicit.publicScheme
    ? config.publicScheme
    : recorded && recorded.serviceDomain === serviceDomain
      ? recorded.publicScheme
      : defaultPublicScheme(serviceDomain);
  const effective = withPublicUrls(config, { serviceDomain, publicScheme });
  const now = isoNow(deps.clock);
  const record = async (settings: SettingsRepo): Promise<void> => {
    await settings.set(KEYS.serviceDomain, serviceDomain, now);
    await settings.set(KEYS.publicScheme, publicScheme, now);
  };

  if (!recorded) {
    // First start, or the first start after upgrading: the pages already carry these values.
    await deps.sql.transaction((tx) => record(deps.settings.in(tx)));
    deps.logger.info({ serviceDomain, publicScheme }, 'recorded the public URL settings for every process on this data dir');
    return effective;
  }
  if (!config.explicit.serviceDomain && recorded.serviceDomain !== config.serviceDomain) {
    deps.logger.info(
      { serviceDomain, default: config.serviceDomain },
      `FOLIO_SERVICE_DOMAIN is not set: using ${serviceDomain} recorded by an earlier start, not the default ${config.serviceDomain}; set it to change public URLs`,
    );
  }
  if (recorded.serviceDomain === serviceDomain && recorded.publicScheme === publicScheme) return effective;

  // Public URLs are in every page, feed and sitemap: every blog is re-rendered. The jobs are
  // recorded with the new values, so a crash in between cannot leave the change half-applied;
  // the server's first tick runs them.
  const blogs = await deps.sql.transaction(async (tx) => {
    await record(deps.settings.in(tx));
    const all = await deps.blogs.in(tx).listAll();
    const jobs = deps.jobs.in(tx);
    for (const blog of all) await jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'site', payload: { reason: URLS_CHANGED }, now });
    return all.length;
  });
  const changes = [
    ...(recorded.serviceDomain === serviceDomain ? [] : [`FOLIO_SERVICE_DOMAIN ${recorded.serviceDomain} -> ${serviceDomain}`]),
    ...(recorded.publicScheme === publicScheme ? [] : [`FOLIO_PUBLIC_SCHEME ${recorded.publicScheme} -> ${publicScheme}`]),
  ];
  deps.logger.warn(
    { previous: recorded, current: { serviceDomain, publicScheme }, blogs },
    `public URL settings changed (${changes.join(', ')}); recorded for every process on this data dir, re-rendering all ${blogs} blogs`,
  );
  return effective;
}
