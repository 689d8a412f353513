#!/usr/bin/env bash
# Starts Obscura's own tor for the onion service and prints the onion origin.
#   deploy/tor/run.sh STATE_DIR [extra tor options ...]
# OBSCURA_ONION_LISTEN (the service's own variable: host:port or unix:/abs/path, default
# 127.0.0.1:8081) is where the onion's port 80 goes. STATE_DIR holds tor's state and the onion
# keys (STATE_DIR/onion/hs_ed25519_secret_key: back it up, it is the address).
# stdout: exactly one line, OBSCURA_ONION_ORIGIN=http://<56 chars>.onion, once tor has loaded
# the keys. tor's own messages go to stderr. SIGTERM/SIGINT/SIGHUP are passed to tor; the
# script exits with tor's status. Extra options are appended to tor's command line.
set -euo pipefail
umask 077
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"

die() { printf 'deploy/tor/run.sh: %s\n' "$*" >&2; exit 2; }

if (($# < 1)) || [[ -z "$1" || "$1" == -* ]]; then
  die "usage: deploy/tor/run.sh STATE_DIR [extra tor options ...]"
fi
STATE="$1"
shift

# Paths go into a torrc unquoted: keep to characters tor reads literally (no spaces, quotes,
# backslashes, '#' comments or %include wildcards).
plain_path() { [[ "$2" == /* && "$2" =~ ^[A-Za-z0-9._/+,:@=~-]+$ ]] || die "$1 must be an absolute path of letters, digits and ._/+,:@=~- only: '$2'"; }

# The same syntax the service reads (src/config.ts): host:port, [v6]:port or unix:/abs/path.
LISTEN="${OBSCURA_ONION_LISTEN:-127.0.0.1:8081}"
case "$LISTEN" in
  unix:*)
    plain_path OBSCURA_ONION_LISTEN "${LISTEN#unix:}"
    TARGET="$LISTEN" ;;
  *)
    [[ "$LISTEN" =~ ^(\[([0-9A-Fa-f:]+)\]|([^:[:space:]]+)):([0-9]{1,5})$ ]] ||
      die "OBSCURA_ONION_LISTEN must be host:port or unix:/abs/path (got '$LISTEN')"
    host="${BASH_REMATCH[2]:-${BASH_REMATCH[3]}}"
    port="${BASH_REMATCH[4]}"
    ((port >= 1 && port <= 65535)) || die "OBSCURA_ONION_LISTEN: tor needs a fixed port from 1 to 65535 (got $port)"
    case "$host" in
      localhost | 127.*) [[ "$host" == localhost ]] && host=127.0.0.1; TARGET="$host:$port" ;;
      ::1) TARGET="[::1]:$port" ;;
      *) die "OBSCURA_ONION_LISTEN must be loopback or a unix socket: the onion listener is reached only through this tor (got '$LISTEN')" ;;
    esac ;;
esac

mkdir -p -- "$STATE"
chmod 700 -- "$STATE"
STATE="$(cd -- "$STATE" && pwd -P)"
plain_path STATE_DIR "$STATE"
plain_path "this script's folder" "$HERE"
mkdir -p -- "$STATE/onion"
chmod 700 -- "$STATE/onion"

# The state folder is named in the torrc itself: --HiddenServiceDir on the command line would
# open a second hidden-service block with no port, and tor refuses the whole configuration.
cat >"$STATE/torrc.new" <<EOF
# Written by deploy/tor/run.sh at every start; edit deploy/tor/torrc or onion-service.conf.
DataDirectory $STATE
%include $HERE/torrc
HiddenServiceDir $STATE/onion
HiddenServicePort 80 $TARGET
%include $HERE/onion-service.conf
EOF
mv -f -- "$STATE/torrc.new" "$STATE/torrc"

command -v tor >/dev/null || die "tor is not installed (Debian: apt-get install tor)"
# --defaults-torrc /dev/null: nothing from /etc/tor (the system tor's files) leaks in.
TOR=(tor --defaults-torrc /dev/null -f "$STATE/torrc" "$@")
if ! "${TOR[@]}" --verify-config >&2; then
  die "tor refused the configuration $STATE/torrc (its messages are above)"
fi

# tor rewrites the hostname from the secret key as it loads it: a fresh file means the keys
# loaded, not that an old file was left behind.
rm -f -- "$STATE/onion/hostname"

pid=""
pending=""
stopping=""
forward() {
  [[ "$1" == HUP ]] || stopping=1
  if [[ -n "$pid" ]]; then kill -s "$1" "$pid" 2>/dev/null || true; else pending="$1"; fi
}
trap 'forward TERM' TERM
trap 'forward INT' INT
trap 'forward HUP' HUP
# All of tor's output goes to stderr (its first notices come before it reads Log).
"${TOR[@]}" >&2 &
pid=$!
[[ -n "$pending" ]] && forward "$pending"

# Returns tor's exit status once it is gone; a trapped signal only interrupts `wait`.
reap() {
  while ! wait "$pid" && kill -0 "$pid" 2>/dev/null; do :; done
  local rc=0
  wait "$pid" || rc=$?
  return "$rc"
}

HOSTNAME_FILE="$STATE/onion/hostname"
until [[ -s "$HOSTNAME_FILE" ]]; do
  if ! kill -0 "$pid" 2>/dev/null; then
    rc=0
    reap || rc=$?
    [[ -n "$stopping" ]] && exit "$rc"
    printf 'deploy/tor/run.sh: tor exited (status %s) before it wrote %s; its messages are above\n' "$rc" "$HOSTNAME_FILE" >&2
    exit $((rc == 0 ? 1 : rc))
  fi
  sleep 0.1
done
onion="$(<"$HOSTNAME_FILE")"
[[ "$onion" =~ ^[a-z2-7]{56}\.onion$ ]] || { forward TERM; reap || true; die "unexpected hostname in $HOSTNAME_FILE: '$onion'"; }
printf 'OBSCURA_ONION_ORIGIN=http://%s\n' "$onion"

rc=0
reap || rc=$?
exit "$rc"
