# estoque-bot: `docker compose up -d --build` (docker-compose.yml: the bot and a Redis with AOF and noeviction), or
# `docker build -t estoque-bot .` and run it with REDIS_URL pointing at your Redis.
# Without Slack and upstream variables the container runs local mode (the sandbox and the playground page, bound
# to 127.0.0.1 inside the container); set the variables of the README for a real deployment.

# --- build: every dependency, TypeScript compiled to dist/ ---
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# --- runtime: production dependencies and dist/ only, as an unprivileged user ---
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/app/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# DATA_DIR is only written in local mode (embedded store, generated credentials key); mount a volume to keep it.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# /healthz is readiness (503 while Redis is away, while starting and stopping). An orchestrator that restarts what
# is unhealthy (Docker Swarm) wants liveness instead: /livez, 200 while the process runs (README, Health).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
