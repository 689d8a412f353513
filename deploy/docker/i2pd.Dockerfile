# Obscura's own i2pd (docker-compose.yml): Debian's i2pd and deploy/i2p, nothing else. Installed
# at build time, so a container start installs nothing; deploy/i2p/run.sh starts it as it does
# on a bare machine and prints the I2P origin.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends i2pd \
 && rm -rf /var/lib/apt/lists/*
COPY deploy/i2p /opt/obscura/deploy/i2p
# The datadir (the site's keys included) is a named volume; a fresh volume takes this owner and mode.
RUN install -d -o i2pd -g i2pd -m 700 /var/lib/obscura-i2pd
USER i2pd
CMD ["/opt/obscura/deploy/i2p/run.sh", "/var/lib/obscura-i2pd"]
