# Obscura's own tor (docker-compose.yml): Debian's tor and deploy/tor, nothing else. Installed at
# build time, so a container start installs nothing; deploy/tor/run.sh starts it as it does on
# a bare machine and prints the onion origin.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends tor \
 && rm -rf /var/lib/apt/lists/*
COPY deploy/tor /opt/obscura/deploy/tor
# The state folder (keys included) is a named volume; a fresh volume takes this owner and mode.
RUN install -d -o debian-tor -g debian-tor -m 700 /var/lib/obscura-tor
USER debian-tor
CMD ["/opt/obscura/deploy/tor/run.sh", "/var/lib/obscura-tor"]
