#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL database, then cleans up.
#
#   .ci/with-postgres.sh <command> [args...]
#   .ci/with-postgres.sh npm test
#   .ci/with-postgres.sh bash -c 'psql "$TEST_DATABASE_URL" -c "select version()"'
#
# The command runs in the caller's directory with TEST_DATABASE_URL set to an empty database
# (postgres://postgres@127.0.0.1:<port>/<db>), and with DATABASE_URL and the libpq PG* connection
# variables unset. The exit status is the command's.
#
# Where the database comes from:
#   1. A server already answering on 127.0.0.1:5432 on which user "postgres" can create a database
#      without a password (and which offers the btree_gist and pg_trgm extensions): a database
#      ipam_ci_<random> is created there and dropped afterwards.
#   2. Otherwise a private cluster: initdb in a temporary directory, listening only on 127.0.0.1
#      (port 5432 if free, else the first free port from 55432 on), trust authentication, fsync off,
#      database "ipam_test". It is stopped and its directory removed on exit, also on failure or Ctrl-C.
#      The server binaries come from WITH_POSTGRES_BINDIR, `pg_config --bindir`, /usr/lib/postgresql/*/bin
#      or the initdb on PATH; when there are none and we are root on Debian/Ubuntu, the `postgresql`
#      package is installed with apt-get. As root, the server runs as the "postgres" system user
#      (created if missing); otherwise as the current user.
#
# Environment knobs:
#   WITH_POSTGRES_USE_EXISTING=0   never use a server on 5432, always start a private cluster
#   WITH_POSTGRES_BINDIR=<dir>     directory holding initdb, pg_ctl and postgres
#   WITH_POSTGRES_DURABLE=1        the private cluster commits durably (fsync, synchronous_commit and
#                                  full_page_writes on), as users run it: for benchmarks
#   WITH_POSTGRES_SHOW_LOG=1       print the private cluster's server log at the end (it is always
#                                  printed when the server fails to start)
set -euo pipefail

readonly REQUIRED_EXTENSIONS=(btree_gist pg_trgm)
readonly FALLBACK_PORT_FIRST=55432
readonly FALLBACK_PORT_LAST=55531

log() { printf 'with-postgres: %s\n' "$*" >&2; }
die() {
  log "ERROR: $*"
  exit 70
}

if [[ $# -eq 0 ]]; then
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2
  exit 64
fi

now() {
  if [[ -n "${EPOCHREALTIME:-}" ]]; then
    printf '%s' "${EPOCHREALTIME/,/.}"
  else
    date +%s
  fi
}
elapsed_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# The command must not pick up another database, and our own client calls must not pick up a
# developer's PGHOST/PGPASSWORD/... either.
unset DATABASE_URL TEST_DATABASE_URL \
  PGHOST PGHOSTADDR PGPORT PGUSER PGPASSWORD PGDATABASE PGSERVICE PGSERVICEFILE PGOPTIONS \
  PGSSLMODE PGREQUIRESSL PGTARGETSESSIONATTRS PGDATA PGCLUSTER

is_root() { [[ "$(id -u)" -eq 0 ]]; }

# --- state used by the cleanup trap -------------------------------------------------------------
MODE=""          # "existing" or "private"
PG_TMP=""        # private cluster: temporary directory (data/, server.log, socket)
PG_STARTED=0     # private cluster: pg_ctl start was attempted
EXISTING_DB=""   # existing server: database we created
BINDIR=""        # directory holding initdb/pg_ctl/postgres
CLIENT_BINDIR="" # directory holding psql/createdb/dropdb/pg_isready ("" = use PATH)
SHOW_LOG=0
if [[ "${WITH_POSTGRES_DURABLE:-0}" == 1 ]]; then DURABILITY=on; else DURABILITY=off; fi

client() { # client <tool> args... : a libpq client tool from the server bindir, else from PATH
  local tool=$1
  shift
  if [[ -n "$CLIENT_BINDIR" && -x "$CLIENT_BINDIR/$tool" ]]; then
    "$CLIENT_BINDIR/$tool" "$@"
  else
    "$tool" "$@"
  fi
}

as_server_user() { # run a server-side command as the postgres user when we are root
  if is_root; then
    if command -v runuser >/dev/null 2>&1; then
      (cd "$PG_TMP" && runuser -u postgres -- "$@")
    else
      # shellcheck disable=SC2016
      (cd "$PG_TMP" && su -s /bin/sh postgres -c 'exec "$0" "$@"' "$@")
    fi
  else
    (cd "$PG_TMP" && "$@")
  fi
}

# shellcheck disable=SC2317 # invoked from the EXIT trap
cleanup() {
  local status=$?
  trap - EXIT INT TERM HUP
  set +e
  if [[ "$MODE" == existing && -n "$EXISTING_DB" ]]; then
    if ! PGCONNECT_TIMEOUT=10 client dropdb -w -h 127.0.0.1 -p 5432 -U postgres --if-exists --force "$EXISTING_DB" 2>/dev/null &&
      ! PGCONNECT_TIMEOUT=10 client dropdb -w -h 127.0.0.1 -p 5432 -U postgres --if-exists "$EXISTING_DB"; then
      log "WARNING: could not drop database $EXISTING_DB on 127.0.0.1:5432"
    else
      log "dropped database $EXISTING_DB"
    fi
  fi
  if [[ -n "$PG_TMP" && -d "$PG_TMP" ]]; then
    if [[ "$PG_STARTED" -eq 1 ]]; then
      if [[ "$SHOW_LOG" -eq 1 || "${WITH_POSTGRES_SHOW_LOG:-0}" == 1 ]] && [[ -f "$PG_TMP/server.log" ]]; then
        log "server log:"
        sed 's/^/  | /' "$PG_TMP/server.log" >&2
      fi
      stop_private_cluster
    fi
    rm -rf "$PG_TMP" || log "WARNING: could not remove $PG_TMP"
  fi
  exit "$status"
}

stop_private_cluster() {
  local pid=""
  [[ -f "$PG_TMP/data/postmaster.pid" ]] && pid=$(head -n1 "$PG_TMP/data/postmaster.pid" 2>/dev/null)
  if [[ -z "$pid" ]]; then
    return 0
  fi
  if as_server_user "$BINDIR/pg_ctl" -D "$PG_TMP/data" -m fast -w -t 20 stop >/dev/null 2>&1 ||
    as_server_user "$BINDIR/pg_ctl" -D "$PG_TMP/data" -m immediate -w -t 10 stop >/dev/null 2>&1; then
    log "stopped the private PostgreSQL cluster"
    return 0
  fi
  if process_alive "$pid"; then
    log "WARNING: pg_ctl could not stop postmaster $pid, killing it"
    kill -KILL "$pid" 2>/dev/null
    sleep 1
  fi
}

process_alive() { # running, not merely a zombie waiting to be reaped
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [[ -n "$state" && "$state" != Z* ]]
}

trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

port_in_use() { # something listens on 127.0.0.1:$1 (a connect that hangs counts as taken)
  local rc=0
  if command -v timeout >/dev/null 2>&1; then
    # shellcheck disable=SC2016 # $1 is expanded by the inner bash
    timeout 3 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" 2>/dev/null || rc=$?
    [[ $rc -eq 0 || $rc -eq 124 ]]
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
  fi
}

# --- finding / installing the server binaries ----------------------------------------------------
has_server_binaries() { [[ -x "$1/initdb" && -x "$1/pg_ctl" && -x "$1/postgres" ]]; }

find_bindir() {
  local dir candidates=()
  [[ -n "${WITH_POSTGRES_BINDIR:-}" ]] && candidates+=("$WITH_POSTGRES_BINDIR")
  if command -v pg_config >/dev/null 2>&1; then
    dir=$(pg_config --bindir 2>/dev/null) && candidates+=("$dir")
  fi
  # Debian/Ubuntu layout, newest major version first.
  while IFS= read -r dir; do
    candidates+=("${dir%/initdb}")
  done < <(compgen -G '/usr/lib/postgresql/*/bin/initdb' | sort -t/ -k5,5 -V -r)
  if dir=$(command -v initdb 2>/dev/null); then
    dir=$(readlink -f "$dir" 2>/dev/null || printf '%s' "$dir")
    candidates+=("${dir%/*}")
  fi
  for dir in "${candidates[@]}"; do
    if has_server_binaries "$dir"; then
      printf '%s\n' "$dir"
      return 0
    fi
  done
  return 1
}

install_postgresql() {
  is_root || die "no PostgreSQL server binaries found; install them (Debian: sudo apt-get install postgresql) or set WITH_POSTGRES_BINDIR"
  command -v apt-get >/dev/null 2>&1 || die "no PostgreSQL server binaries found and no apt-get to install them"
  log "no PostgreSQL server binaries found: installing the Debian 'postgresql' package"
  local started attempt
  started=$(now)
  for attempt in 1 2 3; do
    if apt-get update -q >&2 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql >&2; then
      log "installed postgresql in $(elapsed_since "$started")s"
      return 0
    fi
    log "apt-get failed (attempt $attempt of 3)"
    sleep $((attempt * 5))
  done
  die "could not install postgresql with apt-get"
}

ensure_bindir() {
  [[ -n "$BINDIR" ]] && return 0
  if ! BINDIR=$(find_bindir); then
    install_postgresql
    BINDIR=$(find_bindir) || die "postgresql was installed but initdb/pg_ctl/postgres are still not found"
  fi
  CLIENT_BINDIR=$BINDIR
}

# --- 1. a server already running on 127.0.0.1:5432 -----------------------------------------------
try_existing_server() {
  [[ "${WITH_POSTGRES_USE_EXISTING:-1}" != 0 ]] || return 1
  port_in_use 5432 || return 1
  # The probe needs the client tools; take them from the server bindir when there is one.
  if BINDIR=$(find_bindir); then
    CLIENT_BINDIR=$BINDIR
  else
    BINDIR=""
    if ! command -v pg_isready >/dev/null 2>&1 || ! command -v createdb >/dev/null 2>&1; then
      ensure_bindir
    fi
  fi
  PGCONNECT_TIMEOUT=5 client pg_isready -q -h 127.0.0.1 -p 5432 -t 3 || {
    log "something listens on 127.0.0.1:5432 but it is not a PostgreSQL server accepting connections"
    return 1
  }
  local name
  name="ipam_ci_$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
  if ! PGCONNECT_TIMEOUT=5 client createdb -w -h 127.0.0.1 -p 5432 -U postgres "$name" 2>/dev/null; then
    log "a PostgreSQL server answers on 127.0.0.1:5432 but user postgres cannot create a database there without a password"
    return 1
  fi
  MODE=existing
  EXISTING_DB=$name
  local url="postgres://postgres@127.0.0.1:5432/$name" list available
  list=$(printf "'%s'," "${REQUIRED_EXTENSIONS[@]}")
  available=$(client psql -X -w -At -d "$url" -c "select count(*) from pg_available_extensions where name in (${list%,})") || available=0
  if [[ "$available" != "${#REQUIRED_EXTENSIONS[@]}" ]]; then
    log "the server on 127.0.0.1:5432 lacks some of the extensions ${REQUIRED_EXTENSIONS[*]}; not using it"
    PGCONNECT_TIMEOUT=10 client dropdb -w -h 127.0.0.1 -p 5432 -U postgres --if-exists "$name" || true
    MODE=""
    EXISTING_DB=""
    return 1
  fi
  DB_URL=$url
  log "using the PostgreSQL server on 127.0.0.1:5432, throwaway database $name"
  return 0
}

# --- 2. a private cluster in a temporary directory ------------------------------------------------
ensure_server_user() {
  is_root || return 0
  getent passwd postgres >/dev/null 2>&1 && return 0
  log "creating the system user postgres"
  useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin postgres
}

make_private_tmp() {
  local parent
  for parent in "${TMPDIR:-/tmp}" /tmp; do
    PG_TMP=$(mktemp -d "$parent/ipam-pg.XXXXXX" 2>/dev/null) || continue
    if is_root; then
      chown postgres: "$PG_TMP"
      chmod 700 "$PG_TMP"
      # The postgres user must be able to reach the directory (a TMPDIR under /root is not reachable).
      if runuser -u postgres -- test -w "$PG_TMP" 2>/dev/null; then
        return 0
      fi
      rm -rf "$PG_TMP"
      PG_TMP=""
    else
      return 0
    fi
  done
  die "could not create a temporary directory usable by the postgres user"
}

start_private_cluster() {
  ensure_bindir
  ensure_server_user
  make_private_tmp

  local initdb_args=(-D "$PG_TMP/data" -U postgres --auth=trust --encoding=UTF8 --no-sync)
  # Same collation/ctype as PGlite (the default test database): C / C.UTF-8.
  if locale -a 2>/dev/null | grep -ixE 'c\.utf-?8' >/dev/null; then
    initdb_args+=(--lc-collate=C --lc-ctype=C.UTF-8 --lc-messages=C --lc-monetary=C --lc-numeric=C --lc-time=C)
  else
    initdb_args+=(--no-locale)
  fi
  if ! as_server_user "$BINDIR/initdb" "${initdb_args[@]}" >"$PG_TMP/initdb.log" 2>&1; then
    sed 's/^/  | /' "$PG_TMP/initdb.log" >&2
    die "initdb failed"
  fi

  cat >"$PG_TMP/data/pg_hba.conf" <<'EOF'
# throwaway test cluster: trust, local socket and loopback only
local all all              trust
host  all all 127.0.0.1/32 trust
EOF
  cat >>"$PG_TMP/data/postgresql.conf" <<EOF

# --- throwaway test cluster (.ci/with-postgres.sh) ---
listen_addresses = '127.0.0.1'
unix_socket_directories = '$PG_TMP'
max_connections = 100
fsync = $DURABILITY
synchronous_commit = $DURABILITY
full_page_writes = $DURABILITY
jit = off
timezone = 'UTC'
log_timezone = 'UTC'
logging_collector = off
EOF
  if is_root; then chown postgres: "$PG_TMP/data/pg_hba.conf"; fi

  local port ports=()
  port_in_use 5432 || ports+=(5432)
  for ((port = FALLBACK_PORT_FIRST; port <= FALLBACK_PORT_LAST; port++)); do ports+=("$port"); done
  for port in "${ports[@]}"; do
    port_in_use "$port" && continue
    PG_STARTED=1
    : >"$PG_TMP/server.log"
    if is_root; then chown postgres: "$PG_TMP/server.log"; fi
    if as_server_user "$BINDIR/pg_ctl" -D "$PG_TMP/data" -l "$PG_TMP/server.log" -o "-p $port" -w -t 60 start >/dev/null 2>&1; then
      PORT=$port
      break
    fi
    if grep -qiE 'could not (bind|create listen)|address already in use' "$PG_TMP/server.log"; then
      log "port $port was taken while starting, trying the next one"
      stop_private_cluster >/dev/null 2>&1 || true
      continue
    fi
    SHOW_LOG=1
    die "the PostgreSQL server did not start (see the log above)"
  done
  [[ -n "${PORT:-}" ]] || die "no free port among 5432 and $FALLBACK_PORT_FIRST-$FALLBACK_PORT_LAST"

  if ! client psql -X -q -w -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -c 'CREATE DATABASE ipam_test' >&2; then
    SHOW_LOG=1
    die "could not create database ipam_test"
  fi
  MODE=private
  DB_URL="postgres://postgres@127.0.0.1:$PORT/ipam_test"
  log "started a private PostgreSQL cluster in $PG_TMP on 127.0.0.1:$PORT"
}

# --- main -----------------------------------------------------------------------------------------
STARTED_AT=$(now)
DB_URL=""
if [[ -n "${WITH_POSTGRES_BINDIR:-}" ]] && ! has_server_binaries "$WITH_POSTGRES_BINDIR"; then
  die "WITH_POSTGRES_BINDIR=$WITH_POSTGRES_BINDIR does not hold initdb, pg_ctl and postgres"
fi
PORT=""
try_existing_server || start_private_cluster

SERVER_VERSION=$(client psql -X -w -At -d "$DB_URL" -c 'select version()') || die "cannot query the server"
log "PostgreSQL server: $SERVER_VERSION"
log "TEST_DATABASE_URL=$DB_URL (ready in $(elapsed_since "$STARTED_AT")s)"

export TEST_DATABASE_URL=$DB_URL
set +e
"$@"
status=$?
set -e
if [[ $status -ne 0 ]]; then log "command exited with status $status"; fi
exit "$status"
