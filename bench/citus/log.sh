#!/bin/sh
# log.sh measures how fast `verdict log` stores per-unit values through a
# Citus coordinator, against a plain PostgreSQL server of the same settings.
#
# It starts, on loopback, a 3-node Citus cluster (a coordinator and two
# workers, as in shared/citus/pg15/README.md) and one plain server, all
# PostgreSQL 15 from /usr/lib/postgresql/15/bin with fsync off; runs
# `verdict db distribute` on the coordinator; logs the same CSV of ROWS
# users with two metrics into each with a freshly built verdict; prints the
# wall time and rows/s of each; and removes everything. It needs Citus
# installed into PostgreSQL 15 (shared/citus/pg15/install.sh); run as root
# it runs the servers as the OS user postgres.
#
#   bench/citus/log.sh                  # 2,000,000 rows
#   ROWS=200000 SHARDS=8 bench/citus/log.sh
set -eu

ROWS=${ROWS:-2000000}
SHARDS=${SHARDS:-32}           # shards of unit_values on the cluster
PORT=${PORT:-58432}            # PORT..PORT+3: coordinator, two workers, plain
PG=/usr/lib/postgresql/15/bin
repo=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d /tmp/verdict-bench-citus.XXXXXX)

as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$dir"
cleanup() {
	for d in "$dir"/node*; do
		[ -f "$d/postmaster.pid" ] && as_pg "$PG/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1 || true
	done
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM

# start NAME PORT PRELOAD: a server in $dir/NAME on 127.0.0.1:PORT.
start() {
	as_pg "$PG/initdb" -D "$dir/$1" -U postgres -A trust -E UTF8 --locale=C --no-instructions >/dev/null
	cat >>"$dir/$1/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $2
unix_socket_directories = '$dir'
shared_preload_libraries = '$3'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
max_wal_size = '4GB'
CONF
	as_pg "$PG/pg_ctl" -D "$dir/$1" -l "$dir/$1.log" -w start >/dev/null
}
url() { echo "postgres://postgres@127.0.0.1:$1/postgres?sslmode=disable"; }
sql() { psql -qAt -v ON_ERROR_STOP=1 "$(url "$1")" -c "$2" >/dev/null; }

coord=$PORT
start node0 "$coord" citus
start node1 $((PORT + 1)) citus
start node2 $((PORT + 2)) citus
start node3 $((PORT + 3)) ''
for p in "$coord" $((PORT + 1)) $((PORT + 2)); do
	sql "$p" "CREATE EXTENSION citus"
	sql "$p" "SELECT pg_reload_conf()"
done
sql "$coord" "SELECT citus_set_coordinator_host('127.0.0.1', $coord)"
sql "$coord" "SELECT citus_add_node('127.0.0.1', $((PORT + 1)))"
sql "$coord" "SELECT citus_add_node('127.0.0.1', $((PORT + 2)))"

(cd "$repo" && go build -o "$dir/verdict" ./cmd/verdict)
"$dir/verdict" --database-url "$(url "$coord")" db distribute --shards "$SHARDS"

awk -v n="$ROWS" 'BEGIN {
	print "sample_id,ndcg@10,recall@10"
	for (i = 0; i < n; i++) printf "user-%08d,%.4f,%.4f\n", i, (i % 97) / 97, (i % 13) / 13
}' >"$dir/scores.csv"

# lograte LABEL PORT [ARGS...]: log the CSV and print its wall time and rate.
lograte() {
	label=$1 port=$2
	shift 2
	t0=$(date +%s.%N)
	"$dir/verdict" --database-url "$(url "$port")" log -e bench -r "$label" -s test "$@" "$dir/scores.csv" >/dev/null
	t1=$(date +%s.%N)
	awk -v l="$label" -v n="$ROWS" -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%-28s %9d rows  %7.2f s  %10.0f rows/s\n", l, n, b - a, n / (b - a) }'
}
lograte "plain" $((PORT + 3))
lograte "plain --connections 4" $((PORT + 3)) --connections 4
lograte "citus ($SHARDS shards)" "$coord"
