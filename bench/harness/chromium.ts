import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium, headless, as the browser suites and the static search bench use it. The
 * background-networking flags keep it from reaching for Google's hosts, which this machine's
 * closed network refuses. `extraArgs`: more switches, such as the edge suite's
 * `--host-resolver-rules`, which sends a blog's host to the cache under test.
 */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}
