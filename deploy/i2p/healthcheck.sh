#!/usr/bin/env bash
# The i2pd container's healthcheck (docker-compose.yml): the site's keys exist (its .b32.i2p
# address), and the service's I2P listener answers in this network namespace. After the
# service's container is recreated, a router left in the old namespace turns unhealthy.
# A script, not an inline `bash -c "…"`: some engines (podman 4's Docker API) split a
# healthcheck argument that holds spaces.
test -s "${1:-/var/lib/obscura-i2pd}/obscura-site.dat" && exec 3<>/dev/tcp/127.0.0.1/8082
