import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, serviceHostname } from '../../src/config.js';

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
  ])('names the variable when %s=%s is bad', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name}:`));
  });

  it('needs a bucket for the S3 store', () => {
    expect(() => loadConfig({ FOLIO_STORAGE: 's3' })).toThrow(/^FOLIO_S3_BUCKET:/);
  });
});
