/**
 * The beacon load of the analytics bench, in its own process so that its 1,000 requests a second
 * never share an event loop with the client measuring the API's latency. Paced evenly
 * (harness/pacedLoad.ts), as readers' loads arrive. Prints the counts as one JSON line.
 * Arguments: <base url> <blog host> <seconds> <hits per second>.
 */
import { pacedLoad } from './harness/pacedLoad.js';

const [url, host, seconds, rate] = process.argv.slice(2);
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const result = await pacedLoad({
  url: url!,
  rate: Number(rate),
  seconds: Number(seconds),
  request: (n) => ({
    path: '/_folio/view.gif?p=the-post',
    // A new reader per hit: the worst case for the visitor set.
    headers: {
      host: host!,
      'user-agent': CHROME,
      referer: `http://${host}/the-post`,
      'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
    },
  }),
});
process.stdout.write(`${JSON.stringify({ average: result.ok / Number(seconds), ok: result.ok, failed: result.failed })}\n`);
