#!/usr/bin/env bash
# The tor container's healthcheck (docker-compose.yml): tor has loaded the onion's keys (run.sh
# removes the hostname file before tor starts, tor rewrites it), and the service's onion
# listener answers in this network namespace. A script, not an inline `bash -c "…"`: some
# engines (podman 4's Docker API) split a healthcheck argument that holds spaces.
listen="${OBSCURA_ONION_LISTEN:-127.0.0.1:8081}"
test -s "${1:-/var/lib/obscura-tor}/onion/hostname" && exec 3<>"/dev/tcp/${listen%:*}/${listen##*:}"
