#!/usr/bin/env bash
# Audits a published blog as readers' tools see it (issue 11's acceptance): the Nu HTML Checker
# on every page type, then Lighthouse (mobile and desktop) on home, post, Korean post, tag, tag
# index, archive index and search. Starts Folio from this checkout (npm run build first) on a
# fresh data dir and port 3400, seeds a blog, and an image server on port 3401 for the post images.
# Needs: Debian's chromium and a Java runtime (default-jre-headless); fetches vnu-jar and
# lighthouse with npx. Usage: bash scripts/site-audit.sh  (prints one line per page and form factor)
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=3400 IMAGES=3401
WORK=$(mktemp -d)
cleanup() { kill "$SERVER" "$IMAGE_SERVER" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

npm run build --silent
printf '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 320 180"><rect width="320" height="180" fill="#0a58a6"/><circle cx="240" cy="60" r="28" fill="#fdfcfa"/></svg>' > "$WORK/cover.svg"
(cd "$WORK" && exec python3 -m http.server $IMAGES --bind 127.0.0.1 >/dev/null 2>&1) & IMAGE_SERVER=$!
PORT=$PORT FOLIO_DATA_DIR="$WORK/data" node dist/server/main.js > "$WORK/server.log" 2>&1 & SERVER=$!
for _ in $(seq 1 100); do curl -sf "localhost:$PORT/healthz" >/dev/null && break; sleep 0.2; done
KEY=$(grep -o 'API key: [^ ]*' "$WORK/server.log" | head -1 | cut -d' ' -f3)
API="http://localhost:$PORT"
BLOG=$(curl -s -XPOST "$API/v1/blogs" -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"slug":"check","name":"Field Notes","description":"Essays on small, durable software"}' | python3 -c 'import json,sys;print(json.load(sys.stdin)["id"])')
post() { curl -sf -o /dev/null -XPOST "$API/v1/posts" -H "Authorization: Bearer $KEY" -H "X-Blog-Id: $BLOG" -H 'content-type: application/json' --data-binary "$1"; }
COVER="http://127.0.0.1:$IMAGES/cover.svg"
post '{"title":"Caching static sites at the edge","slug":"edge","tags":["caching","cdn"],"meta":{"og_image":"'"$COVER"'"},"status":"published","content":"A CDN keeps pages close to readers.\n\n## Why purge\n\nBecause pages change.\n\n## How\n\n```js\nconst a = 1;\n```\n\n## Results\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![A diagram]('"$COVER"')"}'
post '{"title":"정적 사이트로 블로그 만들기","slug":"static-ko","tags":["블로그"],"status":"published","content":"정적 사이트로 블로그를 만들었습니다. 독자는 자바스크립트 없이 글을 읽습니다.\n\n## 설치\n\n설치는 간단합니다.\n\n## 설정\n\n설정도 간단합니다.\n\n## 배포\n\n배포합니다."}'
for i in $(seq 1 12); do post '{"title":"Lantern note '"$i"'","slug":"lantern-'"$i"'","tags":["lanterns"],"status":"published","content":"Lanterns, part '"$i"'. A short note about light."}'; done
MONTH=$(date -u +%Y/%m)
SITE="http://check.localhost:$PORT"

echo "== Nu HTML Checker (errors only)"
for p in / /edge /static-ko /tags/ /tags/caching /archive/ "/archive/$MONTH/" /page/1 /search/ /no-such-page; do
  curl -s -o "$WORK/page$(echo "$p" | tr '/' '_').html" -H "Host: check.localhost:$PORT" "localhost:$PORT$p"
done
npm install --silent --no-audit --no-fund --prefix "$WORK/tools" vnu-jar@26.9.27 >/dev/null
VNU="$WORK/tools/node_modules/vnu-jar/build/dist/vnu.jar"
java -jar "$VNU" --errors-only --format text "$WORK"/page*.html && echo "10 pages: no errors"

echo "== Lighthouse: form factor, page, performance, accessibility, best practices, SEO"
CHROME_FLAGS="--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync"
for form in mobile desktop; do
  for p in / /edge /static-ko /tags/caching /tags/ /archive/ '/search/?q=lanterns'; do
    preset=(); [ $form = desktop ] && preset=(--preset=desktop)
    npx --yes lighthouse@12.8.2 "$SITE$p" "${preset[@]}" --chrome-path=/usr/bin/chromium --chrome-flags="$CHROME_FLAGS" \
      --only-categories=performance,accessibility,best-practices,seo --output=json --output-path="$WORK/lh.json" --quiet
    python3 -c "
import json; r = json.load(open('$WORK/lh.json')); s = {k: round(v['score'] * 100) for k, v in r['categories'].items()}
print('$form', '$p', s['performance'], s['accessibility'], s['best-practices'], s['seo'])"
  done
done
