#!/usr/bin/env bash
# A streaming read replica of the test server, for the replica tests (tests/integration/read-replica.test.ts,
# tests/browser/replica-lag.test.ts): a second PostgreSQL cluster on 127.0.0.1, made with
# `pg_basebackup -R` from the server DATABASE_URL names and started with pg_ctl as the postgres user.
#
# Idempotent: a second run finds it running and only prints its port. `.ci/run` runs it before
# `npm test`; the tests run it themselves (tests/helpers/replica.ts) when no replica answers, so
# `npm test` alone works on a fresh machine — as root or as postgres.
#
# It replicates the whole cluster: a test database created on the primary appears on the replica a
# moment later. Output: the replica's port, alone on the last line of stdout.
#
# Environment: DATABASE_URL (the primary; default postgresql://postgres@127.0.0.1:5432/postgres),
# IDEM_REPLICA_DIR (default /var/tmp/idem-test-replica), IDEM_REPLICA_PORT (default: the first free
# port from 5433). `tests/setup/start-replica.sh stop` stops it; `… destroy` also removes its data.
set -euo pipefail

PRIMARY="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}"
DIR="${IDEM_REPLICA_DIR:-/var/tmp/idem-test-replica}"
DATA="$DIR/data"
BIN=/usr/lib/postgresql/15/bin
export PATH="$BIN:$PATH"

as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

mkdir -p "$DIR"
[ "$(id -un)" = postgres ] || chown postgres: "$DIR"
chmod 700 "$DIR"

# One run at a time: test files start in parallel and may all find no replica. The server started
# below must not inherit the lock's descriptor (9>&-), or it would hold the lock for ever.
exec 9>"$DIR/lock"
flock 9

running() { [ -f "$DATA/postmaster.pid" ] && as_postgres pg_ctl -D "$DATA" status >/dev/null 2>&1; }

case "${1:-start}" in
  stop)
    running && as_postgres pg_ctl -D "$DATA" -m fast -w stop >/dev/null
    exit 0
    ;;
  destroy)
    running && as_postgres pg_ctl -D "$DATA" -m immediate -w stop >/dev/null
    rm -rf "$DATA" "$DIR/port"
    exit 0
    ;;
  start) ;;
  *)
    echo "usage: $0 [start|stop|destroy]" >&2
    exit 2
    ;;
esac

# Caught up with the primary within 30 s? A receiver can say "streaming" for a moment and then fail
# for good: without a replication slot the primary may already have removed the WAL it needs (a
# stopped replica, or checkpoints while it lagged). Replaying up to the primary's position is the proof.
caught_up() {
  local target
  target=$(psql "$PRIMARY" -X -At -c "SELECT pg_current_wal_lsn()") || return 1
  for _ in $(seq 1 60); do
    [ "$(psql -h 127.0.0.1 -p "$1" -U postgres -d postgres -X -At -c "SELECT pg_last_wal_replay_lsn() >= '$target'::pg_lsn" 2>/dev/null)" = t ] && return 0
    sleep 0.5
  done
  return 1
}

if running; then
  if caught_up "$(cat "$DIR/port")"; then
    cat "$DIR/port"
    exit 0
  fi
  # Running but lost: made afresh below.
  as_postgres pg_ctl -D "$DATA" -m immediate -w stop >/dev/null || true
fi

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Streaming from the primary within 15 s? (Without a replication slot the primary keeps no WAL for a
# stopped replica: after a long stop it may never catch up, and is then made afresh.)
streaming() {
  for _ in $(seq 1 30); do
    [ "$(psql -h 127.0.0.1 -p "$1" -U postgres -d postgres -X -At -c "SELECT status FROM pg_stat_wal_receiver" 2>/dev/null)" = streaming ] && return 0
    sleep 0.5
  done
  return 1
}

if [ -f "$DATA/standby.signal" ] && [ -f "$DIR/port" ] && ! port_in_use "$(cat "$DIR/port")"; then
  # Made before and stopped (a reboot): start it again; if it cannot catch up, make it afresh below.
  if as_postgres pg_ctl -D "$DATA" -l "$DIR/replica.log" -w -t 60 start >/dev/null 9>&-; then
    if streaming "$(cat "$DIR/port")" && caught_up "$(cat "$DIR/port")"; then
      cat "$DIR/port"
      exit 0
    fi
    as_postgres pg_ctl -D "$DATA" -m immediate -w stop >/dev/null || true
  fi
fi
rm -rf "$DATA"

# The primary must accept replication connections from loopback (Debian's pg_hba.conf has no such line).
psql_primary() { psql "$PRIMARY" -X -At -v ON_ERROR_STOP=1 -c "$1"; }
hba=$(psql_primary "SHOW hba_file")
if ! grep -Eq '^[[:space:]]*host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$hba"; then
  printf '\n# Added by idem-console tests/setup/start-replica.sh: the test read replica streams from loopback.\nhost replication all 127.0.0.1/32 trust\n' >>"$hba"
  psql_primary "SELECT pg_reload_conf()" >/dev/null
fi

port="${IDEM_REPLICA_PORT:-}"
if [ -z "$port" ]; then
  for candidate in $(seq 5433 5499); do
    if ! port_in_use "$candidate"; then
      port=$candidate
      break
    fi
  done
fi
[ -n "$port" ] || {
  echo "start-replica: no free port in 5433-5499" >&2
  exit 1
}

as_postgres pg_basebackup -d "$PRIMARY" -D "$DATA" -R -X stream -c fast

# A hot standby needs these at least as high as the primary's; read them rather than guess.
setting() { psql_primary "SELECT setting FROM pg_settings WHERE name = '$1'"; }
# Debian keeps postgresql.conf and pg_hba.conf in /etc, so the copy has neither: the replica gets its own.
as_postgres tee "$DATA/postgresql.conf" >/dev/null <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$DIR'
hot_standby = on
# Long console reads (exports) are not cancelled by the primary's vacuum; the cost is some bloat
# the primary keeps until they end, named in docs/scaling.md.
hot_standby_feedback = on
max_connections = $(setting max_connections)
max_worker_processes = $(setting max_worker_processes)
max_wal_senders = $(setting max_wal_senders)
max_prepared_transactions = $(setting max_prepared_transactions)
max_locks_per_transaction = $(setting max_locks_per_transaction)
shared_buffers = 32MB
logging_collector = off
CONF
as_postgres tee "$DATA/pg_hba.conf" >/dev/null <<HBA
local all all trust
host all all 127.0.0.1/32 trust
HBA
echo "$port" >"$DIR/port"
as_postgres pg_ctl -D "$DATA" -l "$DIR/replica.log" -w -t 60 start >/dev/null 9>&-
streaming "$port" || {
  echo "start-replica: the replica on port $port started but is not streaming from the primary; see $DIR/replica.log" >&2
  exit 1
}
echo "$port"
