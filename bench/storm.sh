#!/usr/bin/env bash
# The statusd alert storm benchmark (issue 35). See bench/README.md.
#
#   bash bench/storm.sh               1 + 3 storm pairs without reads, 3 rounds of 20 s reads per database (~8 minutes)
#   bash bench/storm.sh --quick       a smoke test: 1 + 1 pairs, 1 round of 5 s (~1 minute)
#   options: --sqlite-only            skip PostgreSQL
#            --postgres-only          skip SQLite (writes bench/storm-results[-quick]-postgres.md)
#            --keep                   keep the working folder (binaries, documents, databases, logs)
#
# A storm: 1,000 Alertmanager alerts in 10 requests sent at once to a
# source's hook; its recovery: the same alerts resolved. PostgreSQL:
# $STATUSD_BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test),
# on which a database of its own is created and dropped. Needs Go, wrk,
# taskset and flock, and 2 cores: statusd on core 0 with GOMAXPROCS=1,
# bench/storm (the sender) and wrk on core 1.
set -euo pipefail

MODE=full KEEP=0 SQLITE=1 PG=${STATUSD_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
ARGS=("$@")
# shellcheck disable=SC2034 # KEEP is read by bench_end (bench/lib.sh)
for arg in "$@"; do
	case $arg in
	--quick) MODE=quick ;;
	--keep) KEEP=1 ;;
	--sqlite-only) PG= ;;
	--postgres-only) SQLITE=0 ;;
	-h | --help)
		awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
		exit 0
		;;
	*)
		echo "storm.sh: unknown argument $arg (try --help)" >&2
		exit 2
		;;
	esac
done
if [ "$MODE" = full ]; then
	PAIRS=3 ROUNDS=3 DUR=20s LIMIT=900 OUT=bench/storm-results.md
else
	PAIRS=1 ROUNDS=1 DUR=5s LIMIT=300 OUT=bench/storm-results-quick.md
fi

NOSQLITE=
if [ $SQLITE = 0 ]; then
	[ -n "$PG" ] || { echo "storm.sh: --postgres-only and --sqlite-only leave nothing to measure" >&2; exit 2; }
	NOSQLITE=-no-sqlite OUT=${OUT%.md}-postgres.md
fi

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
bench_needs storm.sh go wrk taskset flock timeout
bench_lock storm.sh

WORK=$(mktemp -d /tmp/statusd-storm.XXXXXX)
trap 'bench_end storm.sh $?' EXIT

cd "$ROOT"
echo "== building" >&2
go build -o "$WORK/statusd" ./cmd/statusd
go build -o "$WORK/gen" ./bench/gen
go build -o "$WORK/storm" ./bench/storm
"$WORK/gen" -notices 1000 -components 100 -seed 1 -o "$WORK/page.json"

# bench/storm stops statusd (by its PID) however it ends; timeout bounds
# the whole run (INT, which the program takes as Ctrl-C, then KILL 30 s later).
taskset -c 1 timeout -s INT -k 30 $LIMIT "$WORK/storm" -statusd "$WORK/statusd" -page "$WORK/page.json" -work "$WORK" \
	-postgres "$PG" $NOSQLITE -quiet-pairs $PAIRS -rounds $ROUNDS -wrk-d $DUR -limit $((LIMIT - 20))s \
	-command "bash bench/storm.sh${ARGS[*]:+ ${ARGS[*]}}" -o "$OUT" 9>&-
echo "written: $OUT" >&2
