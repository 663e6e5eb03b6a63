# syntax=docker/dockerfile:1
# One image build for the whole workspace; each app is a target stage:
#   docker build --target gateway .   docker build --target oracle-worker .   docker build --target console .
# docker-compose.yml builds these targets; tools/compose-check verifies that they exist.

FROM node:20-slim AS build
WORKDIR /app
ENV NX_NO_CLOUD=true NX_DAEMON=false NX_TUI=false
COPY . .
ENV NEXT_TELEMETRY_DISABLED=1
# Exactly the locked tree (the lockfile lists every platform's optional binaries, see bootstrap.sh).
RUN npm ci --no-audit --no-fund
RUN npx nx run-many -t build --projects=@ahp/gateway,@ahp/oracle-worker,@ahp/console
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:20-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/libs ./libs
USER node

FROM runtime AS gateway
COPY --from=build /app/apps/gateway ./apps/gateway
# Agents (WebSocket /v1/agents), the operator API, /healthz, /readyz and /metrics share this port.
EXPOSE 8080
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "apps/gateway/dist/main.js"]

FROM runtime AS oracle-worker
COPY --from=build /app/apps/oracle-worker ./apps/oracle-worker
# GET /metrics (Prometheus) and GET /healthz on AHP_WORKER_METRICS_PORT; keep it fixed (not 0) in a container.
EXPOSE 9464
STOPSIGNAL SIGTERM
# Healthy once the worker takes jobs; 503 while it connects to Redis or drains.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.AHP_WORKER_METRICS_PORT||9464)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "apps/oracle-worker/dist/main.js"]

FROM runtime AS console
COPY --from=build /app/apps/console/package.json /app/apps/console/next.config.ts ./apps/console/
COPY --from=build /app/apps/console/.next ./apps/console/.next
ENV NEXT_TELEMETRY_DISABLED=1 PORT=3000
WORKDIR /app/apps/console
# The ops console: it talks to a gateway's operator API (AHP_GATEWAY_URL) server-side only.
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/sign-in').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "../../node_modules/next/dist/bin/next", "start"]
