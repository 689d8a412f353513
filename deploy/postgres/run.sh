#!/usr/bin/env bash
# Starts PostgreSQL in the foreground (deploy/docker/postgres.Dockerfile). On an empty data
# folder it first makes the cluster: POSTGRES_USER owns POSTGRES_DB and signs in with
# POSTGRES_PASSWORD (scram-sha-256) over the compose network; nobody signs in without it.
set -euo pipefail
: "${POSTGRES_USER:?set POSTGRES_USER}" "${POSTGRES_DB:=$POSTGRES_USER}"
if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  [[ -n "${POSTGRES_PASSWORD:-}" ]] || { echo "postgres: set POSTGRES_PASSWORD (OBSCURA_PG_PASSWORD in .env)" >&2; exit 1; }
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=scram-sha-256 --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  printf "listen_addresses = '*'\n" >> "$PGDATA/postgresql.conf"
  printf 'host all all 0.0.0.0/0 scram-sha-256\nhost all all ::/0 scram-sha-256\n' >> "$PGDATA/pg_hba.conf"
  if [[ "$POSTGRES_DB" != postgres ]]; then
    # the database is made by a server listening on its socket only, then stopped
    PGPASSWORD="$POSTGRES_PASSWORD" pg_ctl -s -w -o "-c listen_addresses=''" start
    PGPASSWORD="$POSTGRES_PASSWORD" createdb --username="$POSTGRES_USER" --owner="$POSTGRES_USER" "$POSTGRES_DB"
    pg_ctl -s -w stop
  fi
fi
exec postgres
