#!/usr/bin/env bash
# Run a command after the idempotent setup, with the project's Node first on PATH.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/deploy/setup.sh"
[[ -x "$ROOT/.tools/node/bin/node" ]] && export PATH="$ROOT/.tools/node/bin:$PATH"
export PATH="$ROOT/node_modules/.bin:$PATH"
cd "$ROOT"
exec "$@"
