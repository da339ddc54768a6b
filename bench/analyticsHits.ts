/**
 * The beacon load of the analytics bench, in its own process so that its 1,000 requests a second
 * never share an event loop with the client measuring the API's latency. Prints autocannon's
 * counts as one JSON line. Arguments: <base url> <blog host> <seconds> <hits per second>.
 */
import autocannon from 'autocannon';

const [url, host, seconds, rate] = process.argv.slice(2);
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
let n = 0;
const instance = autocannon(
  {
    url: url!,
    connections: 20,
    duration: Number(seconds),
    overallRate: Number(rate),
    requests: [
      {
        method: 'GET',
        path: '/_folio/view.gif?p=the-post',
        setupRequest: (req) => {
          n += 1;
          // A new reader per hit: the worst case for the visitor set.
          const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
          return { ...req, headers: { ...req.headers, host: host!, 'user-agent': CHROME, referer: `http://${host}/the-post`, 'x-forwarded-for': address } };
        },
      },
    ],
  },
  (err, result) => {
    if (err) throw err;
    process.stdout.write(`${JSON.stringify({ average: result.requests.average, ok: result['2xx'], failed: result.errors + result.non2xx })}\n`);
  },
);
autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
