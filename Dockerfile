# syntax=docker/dockerfile:1
# Stage 1: toolchain for the native better-sqlite3 build, then compile TypeScript.
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY bench ./bench
COPY templates ./templates
RUN npm ci --no-audit --no-fund && npm prune --omit=dev

# Stage 2: slim runtime, no compiler, non-root.
FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 FOLIO_DATA_DIR=/app/data
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
COPY --chown=node:node bin ./bin
COPY --chown=node:node templates ./templates
COPY --chown=node:node src/db/migrations ./src/db/migrations
RUN mkdir -p /app/data && chown node:node /app/data && ln -s /app/bin/folio.js /usr/local/bin/folio
USER node
VOLUME ["/app/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/main.js"]
