// The /search/ page's client (src/publish/render/searchScript.ts puts the tokenizer, bm25.ts and
// src/search/static/staticQuery.ts before it). It reads the static index of
// src/search/static/staticFormat.ts: meta.json (fetched as the page loads), then per query word
// its term chunk and delta chunk, the lengths files of the posts that match, then the fragments
// of the results on screen. Every word must
// match (AND); staticQuery.ts ranks the matches exactly as GET /v1/search does. This file only
// fetches and draws. Text from the index only ever reaches the page through textContent.
const form = document.getElementById('search-form');
if (form) {
  const input = form.elements.namedItem('q');
  const status = document.getElementById('search-status');
  const list = document.getElementById('search-results');
  const more = document.getElementById('search-more');
  const text = form.dataset;
  const base = form.getAttribute('action');
  const lang = document.documentElement.lang || 'en';
  const dates = new Intl.DateTimeFormat(lang, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
  const PAGE = 10;

  let meta = null;
  const chunks = new Map();
  const fragments = new Map();
  let run = 0;
  const NO_HITS = { length: 0, slice: async () => [] };
  let shown = { hits: NO_HITS, next: 0, terms: new Set() };

  const getJson = async (path) => {
    const res = await fetch(base + path);
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return res.json();
  };
  const cached = (cache, key, load) => {
    let value = cache.get(key);
    if (!value) {
      value = load().catch((err) => {
        cache.delete(key);
        throw err;
      });
      cache.set(key, value);
    }
    return value;
  };
  const loadMeta = () => {
    if (!meta) {
      meta = getJson('meta.json').catch((err) => {
        meta = null;
        throw err;
      });
    }
    return meta;
  };
  const file = (path) => cached(chunks, path, () => getJson(path));

  const find = async (q) => {
    const terms = queryTerms(q);
    if (terms.length === 0) return null;
    const index = await loadMeta();
    if (!readableMeta(index)) return NO_HITS;
    const dead = new Set(index.dead);
    // In query order: the scores are summed in it, as the API sums them.
    const lists = await Promise.all(terms.map(async (term) => livePostings(await Promise.all(chunkPathsOf(index, term).map(file)), term, dead)));
    // The lengths files of the matching posts, cached as the chunks are.
    return new RankedMatches(await scoreMatches(index, lists, file), entry);
  };

  const entry = async (ordinal) => {
    const index = await loadMeta();
    const at = Math.floor(ordinal / index.fragment);
    const file = await cached(fragments, at, () => getJson(`d/${at}.json`));
    return file ? file[ordinal] : undefined;
  };

  const element = (tag, className, content) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (content !== undefined) node.textContent = content;
    return node;
  };

  // Words of the title and summary that the query matched are marked, found by the index's own
  // tokenizer: 블로그 marks 블로그를, 비 does not mark 비빔밥. A word is a run of letters, digits
  // and marks; it is marked when any of its tokens has a query term. Text nodes only, no markup.
  const WORDS = /([\p{L}\p{N}\p{M}_]+)/u;
  const marked = (node, value, terms) => {
    value.split(WORDS).forEach((part, i) => {
      if (i % 2 === 1 && tokenize(part).some((token) => terms.has(termOf(token)))) node.append(element('mark', '', part));
      else if (part) node.append(part);
    });
    return node;
  };

  // The same card as the post lists of home, archive and tag pages (partials/postList.eta).
  const card = ([title, path, publishedAt, tags, description], terms) => {
    const item = element('li', 'post-item search-result');
    const heading = element('h2', 'post-item-title');
    const link = marked(element('a', ''), title, terms);
    link.href = path;
    heading.append(link);
    const details = element('p', 'post-item-meta');
    const time = element('time', '', dates.format(new Date(publishedAt)));
    time.dateTime = publishedAt;
    details.append(time);
    for (const tag of tags) details.append(` · ${tag}`);
    item.append(heading, details);
    if (description) item.append(marked(element('p', 'post-item-summary'), description, terms));
    return item;
  };

  // Each card appears as soon as its fragment has arrived, in its place in the order: a reader
  // sees the first results while the others are still on their way.
  const showMore = async (mine) => {
    const from = shown.next;
    shown.next = Math.min(from + PAGE, shown.hits.length);
    more.hidden = true;
    // Equal scores are ordered by date and slug, read from the fragments of the tied posts.
    const slice = await shown.hits.slice(from, from + PAGE);
    if (mine !== run) return;
    more.hidden = shown.next >= shown.hits.length;
    const slots = slice.map(() => {
      const slot = element('li', 'search-result-pending');
      slot.setAttribute('aria-hidden', 'true');
      list.append(slot);
      return slot;
    });
    await Promise.all(
      slice.map(async (ordinal, i) => {
        const found = await entry(ordinal);
        if (mine !== run) return;
        if (found) slots[i].replaceWith(card(found, shown.terms));
        else slots[i].remove();
      }),
    );
  };

  const say = (message) => {
    status.textContent = message;
  };

  const search = async (q, { push } = {}) => {
    const mine = ++run;
    // Busy from the moment the address says the new query until its results are on screen.
    list.setAttribute('aria-busy', 'true');
    const url = q.trim() ? `${location.pathname}?q=${encodeURIComponent(q.trim())}` : location.pathname;
    if (push !== false) history.replaceState(null, '', url);
    try {
      const hits = await find(q);
      if (mine !== run) return;
      list.replaceChildren();
      shown = { hits: hits || NO_HITS, next: 0, terms: new Set(queryTerms(q)) };
      more.hidden = true;
      if (hits === null) return say('');
      if (hits.length === 0) return say(text.none.replace('{q}', q.trim()));
      say((hits.length === 1 ? text.one : text.many).replace('{n}', String(hits.length)));
      await showMore(mine);
    } catch {
      if (mine === run) say(text.failed);
    } finally {
      if (mine === run) list.removeAttribute('aria-busy');
    }
  };

  // Words the reader has finished typing (a space follows) will be in the query: their chunks
  // are fetched while the next word is typed, so Enter waits for the last word's alone.
  const prefetchFinishedWords = (value) => {
    const finished = value.replace(/\S+$/, '');
    if (!finished.trim()) return;
    loadMeta()
      .then((index) => {
        if (!readableMeta(index)) return;
        for (const term of queryTerms(finished)) for (const path of chunkPathsOf(index, term)) file(path).catch(() => {});
      })
      .catch(() => {});
  };

  let timer;
  input.addEventListener('input', () => {
    prefetchFinishedWords(input.value);
    clearTimeout(timer);
    timer = setTimeout(() => search(input.value), 120);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(timer);
    search(input.value);
  });
  more.addEventListener('click', () => showMore(run).catch(() => say(text.failed)));

  // The first query should wait for its own words only: meta.json is fetched now, and the
  // tokenizer runs once on Latin and Hangul text, which builds its Unicode tables (hundreds of
  // milliseconds on a slow phone if left to the first query).
  loadMeta().catch(() => {});
  setTimeout(() => queryTerms('warm 준비를'), 0);

  const initial = new URLSearchParams(location.search).get('q');
  if (initial) {
    input.value = initial;
    search(initial, { push: false });
  }
}
