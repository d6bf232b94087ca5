#!/usr/bin/env bash
# The statusd fan-out benchmark. See bench/README.md.
#
#   bash bench/fanout.sh              10,000 subscribers of each channel, 1 + 3 rounds per database (~16 minutes)
#   bash bench/fanout.sh --quick      a smoke test: 1,000 of each, 1 + 2 rounds (~2 minutes)
#   options: --sqlite-only            skip PostgreSQL
#            --postgres-only          skip SQLite (writes bench/fanout-results[-quick]-postgres.md)
#            --webhooks               webhook subscribers only (writes bench/fanout-results[-quick]-webhooks.md):
#                                     the sender's share under a read flood, without the other channels' work
#            --keep                   keep the working folder (binaries, documents, databases, logs)
#
# PostgreSQL: $STATUSD_BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test),
# on which a database of its own is created and dropped. Needs Go, wrk,
# taskset and flock, and 2 cores: statusd on core 0 with GOMAXPROCS=1,
# bench/fanout (the receivers) and wrk on core 1.
set -euo pipefail

MODE=full KEEP=0 SQLITE=1 CHANNELS=email,webhook,slack,teams,discord PG=${STATUSD_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
for arg in "$@"; do
	case $arg in
	--quick) MODE=quick ;;
	--keep) KEEP=1 ;;
	--sqlite-only) PG= ;;
	--postgres-only) SQLITE=0 ;;
	--webhooks) CHANNELS=webhook ;;
	-h | --help)
		sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "fanout.sh: unknown argument $arg (try --help)" >&2
		exit 2
		;;
	esac
done
if [ "$MODE" = full ]; then
	PER=10000 ROUNDS=3 LIMIT=1500 OUT=bench/fanout-results.md
else
	PER=1000 ROUNDS=2 LIMIT=400 OUT=bench/fanout-results-quick.md
fi

NOSQLITE=
if [ $SQLITE = 0 ]; then
	[ -n "$PG" ] || { echo "fanout.sh: --postgres-only and --sqlite-only leave nothing to measure" >&2; exit 2; }
	NOSQLITE=-no-sqlite OUT=${OUT%.md}-postgres.md
fi
[ "$CHANNELS" = webhook ] && OUT=${OUT%.md}-webhooks.md

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
bench_needs fanout.sh go wrk taskset flock timeout
bench_lock fanout.sh

WORK=$(mktemp -d /tmp/statusd-fanout.XXXXXX)
trap 'bench_end fanout.sh $?' EXIT

cd "$ROOT"
echo "== building" >&2
go build -o "$WORK/statusd" ./cmd/statusd
go build -o "$WORK/gen" ./bench/gen
go build -o "$WORK/fanout" ./bench/fanout
"$WORK/gen" -notices 1000 -components 100 -seed 1 -o "$WORK/page.json"

# bench/fanout stops statusd (by its PID) however it ends; timeout bounds
# the whole run (INT, which the program takes as Ctrl-C, then KILL 30 s later).
taskset -c 1 timeout -s INT -k 30 $LIMIT "$WORK/fanout" -statusd "$WORK/statusd" -page "$WORK/page.json" -work "$WORK" \
	-postgres "$PG" $NOSQLITE -per $PER -channels $CHANNELS -rounds $ROUNDS -limit $((LIMIT - 20))s -o "$OUT" 9>&-
echo "written: $OUT" >&2
