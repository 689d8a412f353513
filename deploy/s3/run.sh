#!/bin/bash
# The S3 store in the foreground, for a container (docker-compose.yml, profile `scale`): start.sh
# into the state folder (a volume: the objects outlive the container), then watch the servers;
# SIGTERM stops them. Exits when one of them dies, so the container's restart policy applies.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export D="${1:?usage: run.sh STATE_DIR}"
mkdir -p "$D"
# a stop asked for while the servers start is kept, and carried out once they are up (bash runs
# the trap only after start.sh returns): nothing is left running behind a stopped container
stopping=
trap 'stopping=1' TERM INT
"$HERE/start.sh" >/dev/null
pids=$(cat "$D"/run/*.pid)
stop() {
  kill -TERM $pids 2>/dev/null || true
  for _ in $(seq 1 100); do
    alive=; for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ -z "$alive" ] && exit "${1:-0}"; sleep 0.1
  done
  kill -KILL $pids 2>/dev/null || true; exit "${1:-0}"
}
trap 'stop 0' TERM INT
[ -n "$stopping" ] && stop 0
while :; do
  for p in $pids; do kill -0 "$p" 2>/dev/null || { echo "a Swift server stopped" >&2; stop 1; }; done
  sleep 5 & wait $!
done
