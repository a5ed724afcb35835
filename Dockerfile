# syntax=docker/dockerfile:1
# dreamgym's image: the compiled CLI on Node 20, run as the unprivileged `node` user.
#   docker build -t dreamgym .                  the default: every env but the browser ones
#   docker build -t dreamgym:web --target web .  adds Debian's Chromium for the web envs
# `compose.yaml` runs it as N `serve` instances behind HAProxy (docs/deploy.md).

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 and usearch compile their native parts here.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off for the install (the package's own `prepare` builds, which needs the sources), then
# on for the packages that build or fetch native parts (package.json's allowScripts).
RUN npm ci --ignore-scripts \
 && npm rebuild better-sqlite3 usearch esbuild
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.ts ./scripts/
COPY src ./src
# node-llama-cpp (the embedded llama.cpp, ~700 MB with its GPU builds) is left out: the image
# reaches its LLM over HTTP (any OpenAI-compatible server); `--gguf` says the package is missing.
# (`--omit=optional` would also drop the platform binaries of esbuild and resvg.)
RUN npm run build \
 && npm prune --omit=dev \
 && rm -rf node_modules/node-llama-cpp node_modules/@node-llama-cpp \
 && find dist -name '*.test.*' -delete

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
COPY --chown=node:node bin ./bin
USER node
# AgentGym's first env port; `serve` binds 127.0.0.1 unless told otherwise (--host 0.0.0.0).
EXPOSE 36001
# Probes need no shell tools: Node's fetch against /healthz.
HEALTHCHECK --interval=10s --timeout=3s --start-period=120s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:36001/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/dreamgym.js"]
CMD ["serve", "--env", "webshop", "--host", "0.0.0.0"]

# The web envs drive Chromium; only this variant carries it (~400 MB).
FROM runtime AS web
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium-headless-shell fonts-liberation \
 && rm -rf /var/lib/apt/lists/*
ENV DREAMGYM_CHROMIUM=/usr/lib/chromium/chromium-headless-shell
USER node

# The default target is the last stage; keep the small one the default.
FROM runtime
