#!/usr/bin/env bash
# Three properties and a regulator's archive on this machine: four PostgreSQL clusters, each on
# its own port, data directory and socket folder under DIR, the archive fed by logical
# replication (deploy/archive/README.md). Debian's server binaries (/usr/lib/postgresql/N/bin);
# as root the servers run as the `postgres` user (PostgreSQL refuses root).
#
#   three_clusters.sh up DIR [PORT]   build and start them: properties a, b, c on PORT, PORT+1,
#                                     PORT+2 (default 55430), the archive on PORT+3; each
#                                     property's store at the head revision in schema property_X
#                                     with its own signing key, published and subscribed; writes
#                                     DIR/archive.env and DIR/properties.toml
#   three_clusters.sh play DIR [N]    N rounds (default 5) of `paigow simulate` on each property
#   three_clusters.sh follow DIR      one `paigow audit follow --archive` pass over the three
#   three_clusters.sh resubscribe DIR NAME
#                                     property NAME's subscription made again from the start, as
#                                     after its publisher failed over without its slot (README.md,
#                                     "Failover"): the archive takes what it lacks, once
#   three_clusters.sh down DIR        stop the four servers and remove DIR
#
# Environment: PAIGOW (the paigow program; default this checkout's .venv/bin/paigow, else the one
# on PATH), PG_BIN (default the newest /usr/lib/postgresql/N/bin), PAIGOW_ARCHIVE_FAST=1 (fsync
# off: throwaway clusters for tests and benchmarks only).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROPERTIES=(a b c)

pg_bin() {
  if [ -n "${PG_BIN:-}" ]; then
    echo "$PG_BIN"
    return
  fi
  local found
  found=$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
  echo "${found:-/usr/lib/postgresql/15/bin}"
}
BIN="$(pg_bin)"

paigow_program() {
  if [ -n "${PAIGOW:-}" ]; then
    echo "$PAIGOW"
  elif [ -x "$HERE/../../.venv/bin/paigow" ]; then
    echo "$HERE/../../.venv/bin/paigow"
  else
    command -v paigow
  fi
}

# PostgreSQL's server programs as the postgres user when we are root (from "/": the caller's
# folder may be root's only; every path given to them is absolute).
as_pg() {
  if [ "$(id -u)" = 0 ]; then
    (cd / && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

port_of() { # name base
  case "$1" in
  a) echo $(($2)) ;;
  b) echo $(($2 + 1)) ;;
  c) echo $(($2 + 2)) ;;
  archive) echo $(($2 + 3)) ;;
  esac
}

psql_at() { # port database [psql arguments...]
  local port=$1 database=$2
  shift 2
  PGOPTIONS='-c client_min_messages=warning' \
    "$BIN/psql" -X -q -v ON_ERROR_STOP=1 \
    "host=127.0.0.1 port=$port user=postgres dbname=$database" "$@"
}

# Run a function for each name given before "--", side by side; fail when one failed.
each() {
  local names=() pids=() name pid
  while [ "$1" != -- ]; do
    names+=("$1")
    shift
  done
  shift
  for name in "${names[@]}"; do
    "$@" "$name" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do
    wait "$pid"
  done
}

cluster() { # DIR base name
  local dir=$1 base=$2 name=$3
  local data="$dir/$name/data" port
  port=$(port_of "$name" "$base")
  mkdir -p "$dir/$name"
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir/$name"; fi
  as_pg "$BIN/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --no-sync --no-instructions \
    >"$dir/$name/initdb.log"
  {
    echo "port = $port"
    echo "listen_addresses = '127.0.0.1'"
    echo "unix_socket_directories = '$dir/$name'"
    echo "max_connections = 40"
    echo "shared_buffers = 32MB"
    if [ "$name" != archive ]; then
      echo "wal_level = logical" # the WAL carries what logical decoding needs
      echo "track_commit_timestamp = on" # each commit's time (benchmarks/bench_archive.py)
      echo "max_wal_senders = 4"
      echo "max_replication_slots = 4" # one slot per subscription
    else
      echo "max_logical_replication_workers = 8" # an apply worker a property, and first copies
      echo "max_worker_processes = 12"
      echo "max_sync_workers_per_subscription = 2"
      # The apply worker asks the publisher for a reply after half of this without a message: an
      # idle property's link shows a message at least every 2 s (the follower's `stale`).
      echo "wal_receiver_timeout = '4s'"
      echo "wal_retrieve_retry_interval = '1s'"
    fi
    if [ "${PAIGOW_ARCHIVE_FAST:-}" = 1 ]; then
      echo "fsync = off"
      echo "full_page_writes = off"
    fi
  } | as_pg tee -a "$data/postgresql.conf" >/dev/null
  as_pg "$BIN/pg_ctl" -D "$data" -l "$dir/$name/server.log" -w -t 60 start >/dev/null
}

# A property: its database, its store in schema property_X at the head revision, its signing key,
# its publication.
property() { # DIR base paigow name
  local dir=$1 base=$2 paigow=$3 name=$4
  local port schema url
  port=$(port_of "$name" "$base")
  schema="property_$name"
  url="postgresql+psycopg://postgres@127.0.0.1:$port/paigow?options=-csearch_path%3D$schema"
  psql_at "$port" postgres -c "CREATE DATABASE paigow"
  psql_at "$port" paigow -c "CREATE SCHEMA $schema"
  "$paigow" db upgrade --db "$url" >/dev/null
  "$paigow" keys signing create --out "$dir/keys/$schema.pem" >/dev/null
  psql_at "$port" paigow -v schema="$schema" -f "$HERE/publisher.sql"
  {
    echo "PROPERTY_${name^^}_DB='$url'"
    echo "PROPERTY_${name^^}_SIGNING_KEY='$dir/keys/$schema.pem'"
  } >"$dir/$name/property.env"
}

up() {
  local dir=$1 base=${2:-55430}
  local paigow name port schema conninfo
  paigow="$(paigow_program)"
  if [ ! -x "$BIN/initdb" ]; then
    echo "no PostgreSQL server programs in $BIN (apt-get install postgresql)" >&2
    exit 2
  fi
  mkdir -p "$dir/keys"
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
  echo "$base" >"$dir/port"

  each "${PROPERTIES[@]}" archive -- cluster "$dir" "$base"
  each "${PROPERTIES[@]}" -- property "$dir" "$base" "$paigow"

  # The archive: one database, a schema and a subscription per property.
  port=$(port_of archive "$base")
  psql_at "$port" postgres -c "CREATE DATABASE archive"
  psql_at "$port" archive -f "$HERE/archive.sql"
  {
    echo "# paigow audit follow --archive URL --properties $dir/properties.toml"
    echo "# One [[property]] per property: its schema in the archive, its pinned public key."
  } >"$dir/properties.toml"
  : >"$dir/archive.env"
  for name in "${PROPERTIES[@]}"; do
    schema="property_$name"
    psql_at "$port" archive -v schema="$schema" -f "$HERE/archive_property.sql"
    conninfo="host=127.0.0.1 port=$(port_of "$name" "$base") dbname=paigow"
    conninfo+=" user=paigow_archive_sender application_name=$schema"
    psql_at "$port" archive -v schema="$schema" -v conninfo="$conninfo" \
      -f "$HERE/subscribe.sql"
    printf '\n[[property]]\nname = "%s"\nschema = "%s"\npublic_key = "keys/%s.pem.pub"\n' \
      "$name" "$schema" "$schema" >>"$dir/properties.toml"
    printf 'subscription = "%s"\n' "$schema" >>"$dir/properties.toml"
    cat "$dir/$name/property.env" >>"$dir/archive.env"
  done
  {
    echo "ARCHIVE_ADMIN_DB='postgresql+psycopg://postgres@127.0.0.1:$port/archive'"
    echo "ARCHIVE_FOLLOWER_DB='postgresql+psycopg://paigow_archive_follower@127.0.0.1:$port/archive'"
    echo "ARCHIVE_PROPERTIES='$dir/properties.toml'"
  } >>"$dir/archive.env"
  echo "up: properties a, b, c on ports $base-$((base + 2)), the archive on $port; $dir/archive.env"
}

play() {
  local dir=$1 rounds=${2:-5}
  local paigow name url key
  paigow="$(paigow_program)"
  # shellcheck disable=SC1091
  source "$dir/archive.env"
  for name in "${PROPERTIES[@]}"; do
    url="PROPERTY_${name^^}_DB"
    key="PROPERTY_${name^^}_SIGNING_KEY"
    PAIGOW_SIGNING_KEY="${!key}" "$paigow" simulate --db "${!url}" --rounds "$rounds" >/dev/null
  done
  echo "played $rounds rounds on each of ${PROPERTIES[*]}"
}

follow() {
  local dir=$1
  # shellcheck disable=SC1091
  source "$dir/archive.env"
  "$(paigow_program)" audit follow --archive "$ARCHIVE_FOLLOWER_DB" \
    --properties "$ARCHIVE_PROPERTIES" --once
}

resubscribe() {
  local dir=$1 name=$2
  local base schema port
  base=$(cat "$dir/port")
  schema="property_$name"
  port=$(port_of archive "$base")
  psql_at "$port" archive -c "ALTER SUBSCRIPTION $schema DISABLE" \
    -c "ALTER SUBSCRIPTION $schema SET (slot_name = NONE)" -c "DROP SUBSCRIPTION $schema"
  # The old slot, if the publisher still has it (after a failover it does not).
  psql_at "$(port_of "$name" "$base")" paigow -c "SELECT pg_drop_replication_slot(slot_name)
    FROM pg_replication_slots WHERE slot_name = '$schema' AND NOT active" >/dev/null
  psql_at "$port" archive -v schema="$schema" \
    -v conninfo="host=127.0.0.1 port=$(port_of "$name" "$base") dbname=paigow user=paigow_archive_sender application_name=$schema" \
    -f "$HERE/subscribe.sql"
  echo "resubscribed: $schema copies the property's log again; the archive keeps one of each row"
}

down() {
  local dir=$1 name
  for name in "${PROPERTIES[@]}" archive; do
    if [ -f "$dir/$name/data/postmaster.pid" ]; then
      as_pg "$BIN/pg_ctl" -D "$dir/$name/data" -m immediate -w -t 30 stop >/dev/null || true
    fi
  done
  rm -rf "$dir"
  echo "down: $dir removed"
}

usage() {
  sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

[ $# -ge 2 ] || usage
command=$1
shift
if [ "$command" = up ]; then mkdir -p "$1"; fi
[ -d "$1" ] || {
  echo "no folder $1" >&2
  exit 2
}
dir="$(cd "$1" && pwd)"
shift
set -- "$dir" "$@"
case "$command" in
up) up "$@" ;;
play) play "$@" ;;
follow) follow "$@" ;;
resubscribe) resubscribe "$@" ;;
down) down "$@" ;;
*) usage ;;
esac
