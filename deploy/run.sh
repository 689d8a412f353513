#!/usr/bin/env bash
# Run a command after the idempotent setup, with the project's Node first on PATH.
#   deploy/run.sh [--tests|--bench] command...   (the setup adds the tools only the tests, or only
#   the benchmarks, use)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ "${1:-}" == "--tests" || "${1:-}" == "--bench" ]]; then bash "$ROOT/deploy/setup.sh" "$1"; shift; else bash "$ROOT/deploy/setup.sh"; fi
[[ -x "$ROOT/.tools/node/bin/node" ]] && export PATH="$ROOT/.tools/node/bin:$PATH"
export PATH="$ROOT/node_modules/.bin:$PATH"
cd "$ROOT"
exec "$@"
