# Quarry: one image for API, indexing-worker and generation-worker processes (the command chooses).
# Node 22: @qdrant/js-client-rest 1.19 and sanitize-html 2.18 declare Node 22 as their minimum.
FROM node:22-bookworm-slim AS deps
WORKDIR /app
# better-sqlite3 compiles from source where no prebuilt binary is reachable.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
# npm ci's install script builds the addons in native/: mmap/ (engine snapshots) and dot/ (vector scans).
COPY native ./native
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production QUARRY_DATA_DIR=/data
COPY --from=deps /app/node_modules ./node_modules
COPY --from=deps /app/native ./native
COPY package.json package-lock.json tsconfig.json ./
COPY api ./api
COPY workers ./workers
COPY shared ./shared
COPY scripts ./scripts
COPY web ./web
COPY widget ./widget
# The service compiled to JavaScript (dist/), the operators' app (/app/) and the widget (/widget.js)
# are built into the image, not at start; so is the GloVe table's packed copy (a start reads it in
# a fraction of the time parsing the package's JSON takes).
RUN node scripts/build-server.mjs && node scripts/build-web.mjs && node scripts/build-widget.mjs \
  && node --import tsx -e "import('./shared/llm/adapters/glove-embedder.ts').then((m) => m.loadGloveTable())"
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
# The API: QUARRY_API_PROCESSES processes on port 8080 (default one per core Node sees, up to 4).
CMD ["node", "--enable-source-maps", "dist/api/main.js"]
