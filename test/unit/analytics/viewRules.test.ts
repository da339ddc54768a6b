import { describe, expect, it } from 'vitest';
import { notCounted, type ViewHeaders } from '../../../src/analytics/viewRules.js';
import { externalHost, RecentReferrers, sourceLabel, sourceOfPage } from '../../../src/analytics/referrers.js';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const reader = (extra: Partial<ViewHeaders> = {}): ViewHeaders => ({ method: 'GET', userAgent: CHROME, secPurpose: '', purpose: '', xMoz: '', ...extra });

describe('what is a view', () => {
  it('counts a GET from a browser', () => {
    expect(notCounted(reader())).toBeNull();
    expect(
      notCounted(
        reader({
          userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
        }),
      ),
    ).toBeNull();
    expect(notCounted(reader({ userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0' }))).toBeNull();
  });

  it('never counts HEAD or other methods', () => {
    expect(notCounted(reader({ method: 'HEAD' }))).toBe('method');
    expect(notCounted(reader({ method: 'POST' }))).toBe('method');
  });

  it('never counts crawlers, scripts or a missing user agent (the isbot list)', () => {
    for (const ua of [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
      'curl/8.5.0',
      'python-requests/2.31.0',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
      '',
      '   ',
    ]) {
      expect(notCounted(reader({ userAgent: ua })), ua).toBe('bot');
    }
  });

  it('gives the same verdict to a user agent asked again, and past the remembered verdicts', () => {
    const bot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
    const browser = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
    for (let round = 0; round < 3; round++) {
      expect(notCounted(reader({ userAgent: bot }))).toBe('bot');
      expect(notCounted(reader({ userAgent: browser }))).toBeNull();
      // Thousands of distinct readers in between: the verdicts are bounded and start again.
      for (let i = 0; i < 2_500; i++) expect(notCounted(reader({ userAgent: `${browser} r${round}-${i}` }))).toBeNull();
    }
  });

  it('never counts a prefetch or prerender, whichever header says so', () => {
    expect(notCounted(reader({ secPurpose: 'prefetch' }))).toBe('prefetch');
    expect(notCounted(reader({ secPurpose: 'prefetch;prerender' }))).toBe('prefetch');
    expect(notCounted(reader({ purpose: 'prefetch' }))).toBe('prefetch');
    expect(notCounted(reader({ xMoz: 'prefetch' }))).toBe('prefetch');
  });
});

describe('referrer sources', () => {
  it('keeps hosts only, never paths, queries or schemes', () => {
    expect(externalHost('https://news.ycombinator.com/item?id=1', 'blog.example')).toBe('news.ycombinator.com');
    expect(externalHost('https://www.google.com/search?q=secret', 'blog.example')).toBe('google.com');
    expect(externalHost('https://blog.example/other-post', 'blog.example')).toBeNull();
    expect(externalHost('android-app://com.slack/', 'blog.example')).toBeNull();
    expect(externalHost('not a url', 'blog.example')).toBeNull();
  });

  it('reads ref, source and utm_source of the page address as a label', () => {
    expect(sourceOfPage(new URL('https://b.example/p?utm_source=Newsletter&utm_medium=email'))).toBe('newsletter');
    expect(sourceOfPage(new URL('https://b.example/p?ref=https://t.co/abc'))).toBe('t.co');
    expect(sourceOfPage(new URL('https://b.example/p?source=<script>x'))).toBe('scriptx');
    expect(sourceOfPage(new URL('https://b.example/p'))).toBeNull();
    expect(sourceLabel('x'.repeat(500))).toHaveLength(100);
    expect(sourceLabel('///')).toBeNull();
  });

  it('remembers a served page’s referrer for its beacon once, for a minute, within a bound', () => {
    const recent = new RecentReferrers();
    recent.remember('v1', '/post', 'news.example', 0);
    expect(recent.take('v1', '/other', 1_000)).toBeNull();
    expect(recent.take('v1', '/post', 1_000)).toBe('news.example');
    expect(recent.take('v1', '/post', 1_000)).toBeNull();
    recent.remember('v1', '/post', 'news.example', 0);
    expect(recent.take('v1', '/post', 61_000)).toBeNull();
    for (let i = 0; i < 25_000; i++) recent.remember(`v${i}`, '/post', 'flood.example', 10);
    expect(recent.size).toBeLessThanOrEqual(10_000);
  });
});
