#!/usr/bin/env bash
# The statusd mirror benchmark (CONTRACT C10). See bench/README.md.
#
#   bash bench/mirror.sh           10,000 notices: the first push, 2 series of changes, 3 rounds of 30 s reads (~10 minutes)
#   bash bench/mirror.sh --quick   a smoke test: 1,000 notices, 1 series, 1 round of 5 s (~1 minute)
#   options: --keep                keep the working folder (binaries, document, database, mirror, log)
#            --tmpfs               the mirror's folder in /dev/shm, where a sync costs nothing (writes bench/mirror-results[-quick]-tmpfs.md)
#
# statusd serves the page with --mirror file:///WORK/mirror; the program
# measures the first full push, the push after an update to a past
# incident, after a new incident and after its resolution, and the reads
# of /api/v1/status while pushes run back to back against the same reads
# with the mirror idle. SQLite only. Needs Go, wrk, taskset and flock, and
# 2 cores: statusd on core 0 with GOMAXPROCS=1, bench/mirror and wrk on
# core 1.
set -euo pipefail

MODE=full KEEP=0 MIRROR_IN=
ARGS=("$@")
# shellcheck disable=SC2034 # KEEP is read by bench_end (bench/lib.sh)
for arg in "$@"; do
	case $arg in
	--quick) MODE=quick ;;
	--keep) KEEP=1 ;;
	--tmpfs) MIRROR_IN=/dev/shm ;;
	-h | --help)
		awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
		exit 0
		;;
	*)
		echo "mirror.sh: unknown argument $arg (try --help)" >&2
		exit 2
		;;
	esac
done
if [ "$MODE" = full ]; then
	NOTICES=10000 CHANGES=2 ROUNDS=3 DUR=30s LIMIT=1500 OUT=bench/mirror-results.md
else
	NOTICES=1000 CHANGES=1 ROUNDS=1 DUR=5s LIMIT=300 OUT=bench/mirror-results-quick.md
fi
[ -z "$MIRROR_IN" ] || OUT=${OUT%.md}-tmpfs.md

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
bench_needs mirror.sh go wrk taskset flock timeout
bench_lock mirror.sh

WORK=$(mktemp -d /tmp/statusd-mirror.XXXXXX)
trap 'bench_end mirror.sh $?' EXIT

cd "$ROOT"
echo "== building" >&2
go build -o "$WORK/statusd" ./cmd/statusd
go build -o "$WORK/gen" ./bench/gen
go build -o "$WORK/mirror" ./bench/mirror
"$WORK/gen" -notices $NOTICES -components 100 -seed 1 -o "$WORK/page.json" -meta "$WORK/page.env"
NOTICE=$(sed -n 's/^WRITE_NOTICE_ID=//p' "$WORK/page.env")

# bench/mirror stops statusd (by its PID) however it ends; timeout bounds
# the whole run (INT, which the program takes as Ctrl-C, then KILL 30 s later).
taskset -c 1 timeout -s INT -k 30 $LIMIT "$WORK/mirror" -statusd "$WORK/statusd" -page "$WORK/page.json" -notices $NOTICES \
	-notice "$NOTICE" -work "$WORK" ${MIRROR_IN:+-mirror-in "$MIRROR_IN"} -changes $CHANGES -rounds $ROUNDS -wrk-d $DUR -limit $((LIMIT - 20))s \
	-command "bash bench/mirror.sh${ARGS[*]:+ ${ARGS[*]}}" -o "$OUT" 9>&-
echo "written: $OUT" >&2
