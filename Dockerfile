# Obscura service image. Same setup as on a bare machine: deploy/setup.sh installs Node 24 and
# npm 11 (from the npm registry), the Debian media tools and the npm packages, at build time (a
# container start installs nothing). docker-compose.yml runs it with its own tor and i2pd
# (deploy/docker/) in its network namespace.

# Stage 1: Debian's nodejs and npm only fetch Node 24 and npm 11 from the npm registry; the
# image never holds them.
FROM debian:bookworm-slim AS node
RUN apt-get update && apt-get install -y --no-install-recommends nodejs npm ca-certificates
WORKDIR /opt/obscura
COPY deploy/setup.sh ./deploy/
RUN bash deploy/setup.sh --node

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/obscura
COPY --from=node /opt/obscura/.tools ./.tools
COPY package.json package-lock.json .npmrc ./
COPY deploy/setup.sh ./deploy/
# the packages the service runs, not the test and lint tools (the slow layer: it is rebuilt only
# when the setup or the lock file changes)
RUN npm_config_omit=dev bash deploy/setup.sh && rm -rf /var/lib/apt/lists/* /root/.npm /tmp/*
# Only what runs (.dockerignore): no tests, no local data folder, no secrets from the build context.
COPY deploy ./deploy
COPY src ./src
COPY bin ./bin
# A fixed uid, so that the operator can give the master key file to it (docker-compose.yml).
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/obscura obscura \
 && install -d -o obscura -g obscura -m 700 /var/lib/obscura /var/lib/obscura-backups
USER obscura
ENV OBSCURA_DATA_DIR=/var/lib/obscura \
    OBSCURA_CLEARNET_LISTEN=0.0.0.0:8080 \
    OBSCURA_ONION_LISTEN=127.0.0.1:8081 \
    OBSCURA_I2P_LISTEN=127.0.0.1:8082
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 CMD [".tools/node/bin/node", "deploy/healthcheck.ts"]
CMD [".tools/node/bin/node", "--max-semi-space-size=1", "--external-memory-accounted-in-global-limit", "--initial-heap-size=64", "src/main.ts"]
