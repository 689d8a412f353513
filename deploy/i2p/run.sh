#!/usr/bin/env bash
# Starts Obscura's own i2pd for the I2P site and prints the site's origin.
#   deploy/i2p/run.sh STATE_DIR [extra i2pd options ...]
# OBSCURA_I2P_LISTEN (the service's own variable, default 127.0.0.1:8082) is where the site's
# server tunnel goes: a loopback host:port, since i2pd 2.45.1 server tunnels reach TCP only.
# STATE_DIR is i2pd's datadir: the router's identity and view of the network, and the site's
# keys (STATE_DIR/obscura-site.dat: back it up, it is the address).
# stdout: exactly one line, OBSCURA_I2P_ORIGIN=http://<52 chars>.b32.i2p, once the site's keys
# exist. i2pd's own messages go to stderr. i2pd takes this script's place (exec), so SIGTERM
# and SIGINT reach it directly and nothing is left behind. Extra options are appended to
# i2pd's command line. i2pd.conf and tunnels.conf are read from the folder of the path this
# script is called by (a symlinked run.sh reads the configs beside the link).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"

die() { printf 'deploy/i2p/run.sh: %s\n' "$*" >&2; exit 2; }

if (($# < 1)) || [[ -z "$1" || "$1" == -* ]]; then
  die "usage: deploy/i2p/run.sh STATE_DIR [extra i2pd options ...]"
fi
STATE="$1"
shift

# The same syntax the service reads (src/config.ts): host:port or [v6]:port; unix: is refused.
LISTEN="${OBSCURA_I2P_LISTEN:-127.0.0.1:8082}"
[[ "$LISTEN" != unix:* ]] ||
  die "OBSCURA_I2P_LISTEN=$LISTEN: i2pd 2.45.1 server tunnels reach TCP only; give the I2P listener a loopback host:port"
[[ "$LISTEN" =~ ^(\[([0-9A-Fa-f:]+)\]|([^:[:space:]]+)):([0-9]{1,5})$ ]] ||
  die "OBSCURA_I2P_LISTEN must be host:port (got '$LISTEN')"
host="${BASH_REMATCH[2]:-${BASH_REMATCH[3]}}"
port="${BASH_REMATCH[4]}"
((port >= 1 && port <= 65535)) || die "OBSCURA_I2P_LISTEN: i2pd needs a fixed port from 1 to 65535 (got $port)"
case "$host" in
  localhost) host=127.0.0.1 ;;
  127.* | ::1) ;;
  *) die "OBSCURA_I2P_LISTEN must be loopback: the I2P listener is reached only through this i2pd (got '$LISTEN')" ;;
esac

umask 077 # i2pd writes private keys into the datadir
mkdir -p -- "$STATE"
chmod 700 -- "$STATE"
STATE="$(cd -- "$STATE" && pwd -P)"

# tunnels.conf with the [obscura] tunnel's host and port set from OBSCURA_I2P_LISTEN; every
# other line as shipped.
awk -v host="$host" -v port="$port" '
  /^[[:space:]]*\[/ { section = $0; gsub(/[][[:space:]]/, "", section) }
  section == "obscura" && /^[[:space:]]*host[[:space:]]*=/ { print "host = " host; h++; next }
  section == "obscura" && /^[[:space:]]*port[[:space:]]*=/ { print "port = " port; p++; next }
  { print }
  END { exit (h == 1 && p == 1) ? 0 : 1 }
' "$HERE/tunnels.conf" >"$STATE/tunnels.conf.new" ||
  die "$HERE/tunnels.conf needs exactly one host and one port line in its [obscura] section"
{
  printf '# Written by deploy/i2p/run.sh at every start from %s/tunnels.conf; edit that one.\n' "$HERE"
  cat "$STATE/tunnels.conf.new"
} >"$STATE/tunnels.conf"
rm -f -- "$STATE/tunnels.conf.new"

KEYS="$STATE/obscura-site.dat" # the keys line of tunnels.conf, relative to the datadir

# The .b32.i2p name: base32 of the SHA-256 of the destination, which is the start of the keys
# file (256-byte public key, 128-byte signing key, certificate type, 2-byte certificate length,
# certificate). Lower case, no padding. Fails while the file is shorter than that.
b32_of() {
  local hi lo len hex
  read -r hi lo < <(od -An -tu1 -j385 -N2 -- "$1")
  [[ -n "${lo:-}" ]] || return 1
  len=$((387 + hi * 256 + lo))
  (($(stat -c %s -- "$1") >= len)) || return 1
  hex="$(head -c "$len" -- "$1" | sha256sum)"
  # shellcheck disable=SC2059 # the format is the hash written as \xHH escapes
  printf "$(sed 's/../\\x&/g' <<<"${hex:0:64}")" | base32 -w0 | tr -d '=' | tr '[:upper:]' '[:lower:]'
}

# The printer runs beside i2pd, detached (so it is nobody's zombie): it waits for the keys,
# prints the origin and ends; it also ends if i2pd (this shell's pid, after exec) is gone.
i2pd_pid=$$
(
  (
    for _ in $(seq 1 600); do
      if [[ -s "$KEYS" ]] && b32="$(b32_of "$KEYS")" && [[ "$b32" =~ ^[a-z2-7]{52}$ ]]; then
        printf 'OBSCURA_I2P_ORIGIN=http://%s.b32.i2p\n' "$b32"
        exit 0
      fi
      kill -0 "$i2pd_pid" 2>/dev/null || exit 1
      sleep 0.1
    done
    printf 'deploy/i2p/run.sh: i2pd wrote no %s within 60 s\n' "$KEYS" >&2
    exit 1
  ) &
)

exec i2pd --conf "$HERE/i2pd.conf" --tunconf "$STATE/tunnels.conf" \
  --datadir "$STATE" --pidfile "$STATE/i2pd.pid" "$@" >&2
