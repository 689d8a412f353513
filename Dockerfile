# Obscura service image. Same two commands as on a bare machine: deploy/setup.sh installs
# Node 24, the Debian media tools and the npm packages.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends nodejs npm ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/obscura
COPY package.json package-lock.json ./
COPY deploy ./deploy
RUN bash deploy/setup.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN useradd --system --home /var/lib/obscura obscura && mkdir -p /var/lib/obscura && chown obscura /var/lib/obscura
USER obscura
ENV OBSCURA_DATA_DIR=/var/lib/obscura \
    OBSCURA_CLEARNET_LISTEN=0.0.0.0:8080 \
    OBSCURA_ONION_LISTEN=127.0.0.1:8081 \
    OBSCURA_I2P_LISTEN=127.0.0.1:8082
EXPOSE 8080
CMD [".tools/node/bin/node", "--max-semi-space-size=1", "--external-memory-accounted-in-global-limit", "--initial-heap-size=64", "src/main.ts"]
