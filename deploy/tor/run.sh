#!/usr/bin/env bash
# Starts the project's own tor for the onion service and prints the onion origin.
# Usage: deploy/tor/run.sh [state-dir]   (default /var/lib/obscura/tor)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
STATE="${1:-/var/lib/obscura/tor}"
mkdir -p "$STATE/onion" && chmod 700 "$STATE" "$STATE/onion"
tor -f "$HERE/torrc" --DataDirectory "$STATE" --HiddenServiceDir "$STATE/onion" --RunAsDaemon 0 &
pid=$!
for _ in $(seq 1 60); do [[ -s "$STATE/onion/hostname" ]] && break; sleep 0.5; done
echo "OBSCURA_ONION_ORIGIN=http://$(cat "$STATE/onion/hostname")"
wait "$pid"
