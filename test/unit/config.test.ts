import { describe, expect, it } from 'vitest';
import { ConfigError, defaultPublicScheme, loadConfig, serviceHostname, withPublicUrls } from '../../src/config/config.js';

describe('loadConfig', () => {
  it('has the defaults of decisions.md', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.serviceDomain).toBe('localhost:3000');
    expect(config.publicScheme).toBe('http');
    expect(config.storage).toBe('fs');
    expect(config.serveSites).toBe(true);
    expect(config.rateLimits).toBe(true);
  });

  it('follows PORT in the default service domain and uses https for real domains', () => {
    expect(loadConfig({ PORT: '8080' }).serviceDomain).toBe('localhost:8080');
    expect(loadConfig({ FOLIO_SERVICE_DOMAIN: 'blogs.example.com' }).publicScheme).toBe('https');
    expect(serviceHostname(loadConfig({}))).toBe('localhost');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['FOLIO_STORAGE', 'ftp'],
    ['FOLIO_SERVE_SITES', 'maybe'],
    ['FOLIO_RATE_LIMITS', 'sometimes'],
    ['FOLIO_SERVICE_DOMAIN', 'not a domain'],
    ['FOLIO_S3_ENDPOINT', 'localhost:9000'],
    ['FOLIO_PUBLIC_SCHEME', 'gopher'],
    ['FOLIO_SHUTDOWN_TIMEOUT', '0'],
    ['FOLIO_SHUTDOWN_TIMEOUT', '2.5'],
    ['FOLIO_METRICS_TOKEN', 'short'],
    ['FOLIO_METRICS_TOKEN', 'a token with spaces in it'],
    ['FOLIO_DATABASE_URL', 'mysql://db.example.com/folio'],
    ['FOLIO_DATABASE_URL', 'postgres://db.example.com'],
    ['FOLIO_DATABASE_URL', 'not a url'],
  ])('names the variable when %s=%s is bad', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name}:`));
  });

  it('uses SQLite unless FOLIO_DATABASE_URL names a PostgreSQL database', () => {
    expect(loadConfig({}).databaseUrl).toBeNull();
    expect(loadConfig({ FOLIO_DATABASE_URL: '  ' }).databaseUrl).toBeNull();
    expect(loadConfig({ FOLIO_DATABASE_URL: 'postgres://folio:secret@db:5432/folio' }).databaseUrl).toBe('postgres://folio:secret@db:5432/folio');
    expect(loadConfig({ FOLIO_DATABASE_URL: 'postgresql://db/folio' }).databaseUrl).toBe('postgresql://db/folio');
    // The refusal never repeats the URL, which may hold a password.
    expect(() => loadConfig({ FOLIO_DATABASE_URL: 'mysql://folio:secret@db/folio' })).toThrow(/^((?!secret).)*$/);
  });

  it('tells explicit URL settings from defaults (a PORT-derived domain is a default)', () => {
    expect(loadConfig({ PORT: '8080' }).explicit).toEqual({ serviceDomain: false, publicScheme: false });
    expect(loadConfig({ FOLIO_SERVICE_DOMAIN: 'blogs.example.com' }).explicit).toEqual({ serviceDomain: true, publicScheme: false });
    expect(loadConfig({ FOLIO_SERVICE_DOMAIN: '', FOLIO_PUBLIC_SCHEME: 'http' }).explicit).toEqual({ serviceDomain: false, publicScheme: true });
  });

  it('derives the default scheme from the domain, port or not', () => {
    expect(['localhost', 'localhost:3000', 'blog.localhost:8080', 'example.com:8080', 'notlocalhost.com'].map(defaultPublicScheme)).toEqual([
      'http',
      'http',
      'http',
      'https',
      'https',
    ]);
  });

  it('replaces the URL settings in a new frozen config', () => {
    const config = loadConfig({});
    const moved = withPublicUrls(config, { serviceDomain: 'blogs.example.com', publicScheme: 'https' });
    expect(Object.isFrozen(moved)).toBe(true);
    expect([moved.serviceDomain, moved.publicScheme, moved.port]).toEqual(['blogs.example.com', 'https', 3000]);
    expect(config.serviceDomain).toBe('localhost:3000');
  });

  it('needs a bucket for the S3 store', () => {
    expect(() => loadConfig({ FOLIO_STORAGE: 's3' })).toThrow(/^FOLIO_S3_BUCKET:/);
  });

  it('bounds a graceful stop at 20 s by default, and keeps /metrics open unless a token is set', () => {
    expect(loadConfig({}).shutdownTimeoutMs).toBe(20_000);
    expect(loadConfig({ FOLIO_SHUTDOWN_TIMEOUT: '45' }).shutdownTimeoutMs).toBe(45_000);
    expect(loadConfig({}).metricsToken).toBeNull();
    expect(loadConfig({ FOLIO_METRICS_TOKEN: ' 0123456789abcdef0123 ' }).metricsToken).toBe('0123456789abcdef0123');
  });
});
