# syntax=docker/dockerfile:1
# test/integration/dockerImage.test.ts rebuilds both stages from this file (no Docker engine on
# CI): it copies what each COPY names from the context .dockerignore leaves, runs the build and
# starts the runtime stage's CMD. Keep to instructions test/support/docker/ knows.

# Stage 1: dependencies with the toolchain better-sqlite3 may need, then the production build
# (tsconfig.build.json: src/ only; benches and test helpers never reach the image; then
# scripts/bundleServer.mjs joins the server into dist/server/main.js for a fast start).
# Node 24, the current LTS, in both stages (Node 20 left maintenance in April 2026, and the AWS
# SDK warns on every start under it). CI and the tests run the machines' Node 20.19; package.json
# `engines` admits 20.19+, 22 and 24, and test/integration/dockerImage.test.ts starts the built
# stages with whichever node runs the tests.
FROM node:24-bookworm AS build
WORKDIR /app
# Dependencies first, in a layer that only a lockfile change rebuilds. --ignore-scripts keeps
# npm ci from running `prepare` (the build) before the sources are here; it also skips
# better-sqlite3's install script (prebuilt binary, else node-gyp) and sharp's (checks its prebuilt
# libvips package), which are then run by name. @scarf/scarf's (swagger-ui-dist's install
# analytics) stays skipped on purpose.
COPY package.json package-lock.json .npmrc ./
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild better-sqlite3 sharp
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/bundleServer.mjs scripts/bundleDashboard.mjs ./scripts/
COPY src ./src
COPY web ./web
RUN npm run build && npm prune --omit=dev

# Stage 2: slim runtime without compiler or dev dependencies. The code stays owned by root and
# read-only to the `node` user the server runs as; only the data volume is writable.
FROM node:24-bookworm-slim
# glibc's malloc keeps its sliding mmap threshold off (setting the trim threshold, even to its
# default, does that): buffers of 128 KB and more get mappings of their own, returned when freed,
# so a server at rest gives back what its busy minutes took (docs/operations.md#memory). npm start
# sets the same.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 FOLIO_DATA_DIR=/app/data MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
# The bundled server, and the modules the CLI and the worker threads run.
COPY --from=build /app/dist/server ./dist/server
COPY --from=build /app/dist/src ./dist/src
# The dashboard's hashed browser assets and their manifest (scripts/bundleDashboard.mjs).
COPY --from=build /app/dist/dashboard ./dist/dashboard
COPY bin ./bin
COPY templates ./templates
COPY LICENSE ./
# Migrations are read at run time from src/db/migrations (src/lib/paths.ts).
COPY src/db/migrations ./src/db/migrations
RUN mkdir -p /app/data && chown node:node /app/data && ln -s /app/bin/folio.js /usr/local/bin/folio
USER node
VOLUME ["/app/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/server/main.js"]
