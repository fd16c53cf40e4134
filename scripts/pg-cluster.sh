#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benchmarks: installs Debian's postgresql when
# missing, starts a cluster under a temporary directory (fsync off: test data only) and prints
# DATABASE_URL=... on stdout. Stop it with: scripts/pg-cluster.sh stop
set -euo pipefail
PGPORT=${PGPORT:-54329}
PGROOT=${PGROOT:-${TMPDIR:-/tmp}/voicename-pg}
DBNAME=${DBNAME:-voicename_test}
DBUSER=${DBUSER:-voicename}
DBPASS=${DBPASS:-voicename}

pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

if [ "${1:-start}" = stop ]; then
  [ -d "$PGROOT/data" ] && as_pg "$(pgbin)/pg_ctl" -D "$PGROOT/data" -m fast -s stop || true
  rm -rf "$PGROOT"
  exit 0
fi

if [ -z "$(pgbin)" ]; then
  echo "installing postgresql from Debian" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2
fi
BIN=$(pgbin)
[ -d "$PGROOT/data" ] && as_pg "$BIN/pg_ctl" -D "$PGROOT/data" -m immediate -s stop >/dev/null 2>&1 || true
rm -rf "$PGROOT" && mkdir -p "$PGROOT/sock"
[ "$(id -u)" = 0 ] && chown -R postgres:postgres "$PGROOT"
as_pg "$BIN/initdb" -D "$PGROOT/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 --no-sync -E UTF8 --locale=C.UTF-8 >/dev/null
as_pg "$BIN/pg_ctl" -D "$PGROOT/data" -l "$PGROOT/postgres.log" -w -t 30 -s start \
  -o "-p $PGPORT -k $PGROOT/sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
as_pg "$BIN/psql" -h "$PGROOT/sock" -p "$PGPORT" -U postgres -v ON_ERROR_STOP=1 -q \
  -c "CREATE ROLE $DBUSER LOGIN PASSWORD '$DBPASS'" -c "CREATE DATABASE $DBNAME OWNER $DBUSER"
echo "DATABASE_URL=postgres://$DBUSER:$DBPASS@127.0.0.1:$PGPORT/$DBNAME"
