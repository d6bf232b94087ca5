#!/usr/bin/env bash
# The statusd benchmark harness. See bench/README.md.
#
#   bash bench/run.sh                 the full run (~12 minutes): 100,000 notices, 1,000 components
#   bash bench/run.sh --quick         a smoke test (~2 minutes): 10,000 notices, 100 components
#   options: --wait-quiet             first wait (up to 10 minutes) for a 1-minute load average below 1.5
#            --keep                   keep the working folder (binaries, database, logs, raw results)
#            --unpinned               as a deployment runs: nothing pinned, GOMAXPROCS = every core
#
# Needs Go, wrk, curl and taskset (util-linux), and 2 cores: statusd and the
# baselines run on core 0 with GOMAXPROCS=1, wrk and bench/load on core 1
# (--unpinned: everything on every core, the generator beside the server).
# Every process it starts is stopped by PID when it ends, however it ends.
set -euo pipefail

MODE=full KEEP=0 WAIT_QUIET=0 UNPINNED=0
for arg in "$@"; do
	case $arg in
	--quick) MODE=quick ;;
	--keep) KEEP=1 ;;
	--wait-quiet) WAIT_QUIET=1 ;;
	--unpinned) UNPINNED=1 ;;
	-h | --help)
		sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "run.sh: unknown argument $arg (try --help)" >&2
		exit 2
		;;
	esac
done

if [ "$MODE" = full ]; then
	NOTICES=100000 COMPONENTS=1000 ROUNDS=5 WRK_D=3 LAT_D=5 LAT20_D=10 OVER_D=8 TRIALS=5 LIMIT=1080
else
	NOTICES=10000 COMPONENTS=100 ROUNDS=2 WRK_D=1 LAT_D=2 LAT20_D=3 OVER_D=3 TRIALS=2 LIMIT=300
fi
WRK_C=32 MAX_IN_FLIGHT=512 SEED=1
# SERVER and CLIENT prefix the commands of the servers (statusd, the
# baselines) and of the generators (wrk, bench/load): one core each, or
# (--unpinned) nothing, as a deployment runs: the Go runtime takes every
# core (GOMAXPROCS unset), and the generator shares them.
SERVER=(env GOMAXPROCS=1 taskset -c 0) CLIENT=(taskset -c 1)
PLACEMENT='statusd and the baselines `GOMAXPROCS=1 taskset -c 0`; wrk and bench/load `taskset -c 1`'
if [ $UNPINNED = 1 ]; then
	SERVER=(env -u GOMAXPROCS) CLIENT=()
	PLACEMENT="unpinned (--unpinned): statusd and the baselines with GOMAXPROCS unset ($(nproc) cores), wrk and bench/load on the same cores"
fi

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=$ROOT/bench
# shellcheck source=bench/lib.sh
. "$BENCH/lib.sh"
bench_needs run.sh go wrk curl taskset flock
bench_lock run.sh

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
if [ $WAIT_QUIET = 1 ]; then
	for _ in $(seq 60); do
		awk '{exit !($1 < 1.5)}' /proc/loadavg && break
		echo "waiting for a quiet machine: load average $(loadavg)" >&2
		sleep 10
	done
fi
# The metrics requests ask for windows that the date bounds (a year back
# at most, to today): in a run that spans midnight UTC, their answers
# would change under the rounds, and the first request after a write
# would ask for a start the server no longer allows (400). Such a run
# waits for the new day first.
left=$((86400 - $(date -u +%s) % 86400))
if [ $left -lt $LIMIT ]; then
	echo "run.sh: midnight UTC is $left s away, less than a run may take; waiting for it" >&2
	sleep $((left + 2))
fi
LOAD_BEFORE=$(loadavg)

WORK=$(mktemp -d /tmp/statusd-bench.XXXXXX)
BIN=$WORK/bin RESULTS=$WORK/results.jsonl DB=$WORK/statusd.db
mkdir -p "$BIN"
: >"$RESULTS"
PIDS=()

# stop_pid stops one process this script started: TERM, then KILL after 5 s.
stop_pid() {
	local pid=$1
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}
cleanup() {
	local code=$?
	trap - EXIT INT TERM
	for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
	bench_end run.sh $code
}
trap cleanup EXIT
trap 'echo "run.sh: interrupted" >&2; exit 130' INT TERM

# The whole run is bounded: a watchdog ends it (and so every process it
# started) if it runs past LIMIT seconds.
(
	trap 'kill $sleeper 2>/dev/null; exit 0' TERM
	sleep $LIMIT &
	sleeper=$!
	wait $sleeper
	echo "run.sh: time limit of $LIMIT s reached; stopping" >&2
	kill -TERM $$
) 9>&- &
PIDS+=($!)

log() { printf '\n== %s (%s s, load %s)\n' "$*" $SECONDS "$(loadavg)" >&2; }
json_str() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
record() { printf '%s\n' "$1" >>"$RESULTS"; }
note() { record "{\"kind\":\"note\",\"text\":\"$(json_str "$1")\"}"; }

# wait_listening waits for the "listening" line of a server's log and
# prints its URL.
wait_listening() {
	local logfile=$1 pid=$2
	for _ in $(seq 1200); do
		if url=$(grep -o 'listening" url=[^ ]*' "$logfile" 2>/dev/null | head -1 | cut -d= -f2) && [ -n "$url" ]; then
			echo "$url"
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	echo "run.sh: the server did not start; its log:" >&2
	cat "$logfile" >&2
	return 1
}

# settle waits until a process stops using the CPU (at most 10 s), so that
# work left over from one measurement does not land in the next one.
settle() {
	local pid=$1 a b
	for _ in $(seq 50); do
		a=$(awk '{print $14+$15}' "/proc/$pid/stat")
		sleep 0.2
		b=$(awk '{print $14+$15}' "/proc/$pid/stat")
		[ $((b - a)) -le 1 ] && return 0
	done
}

rss_record() {
	local pid=$1 when=$2 rss hwm
	rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
	hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
	record "{\"kind\":\"rss\",\"when\":\"$when\",\"vmrss_kb\":$rss,\"vmhwm_kb\":$hwm}"
	echo "statusd resident memory ($when): VmRSS $((rss / 1024)) MB, VmHWM $((hwm / 1024)) MB" >&2
}

log "building"
cd "$ROOT"
go build -o "$BIN/statusd" ./cmd/statusd || {
	echo "run.sh: statusd does not build (someone's work in progress?); retry in a minute" >&2
	exit 1
}
for tool in gen baseline load probe report; do go build -o "$BIN/$tool" "./bench/$tool"; done

log "generating $NOTICES notices, $COMPONENTS components (seed $SEED)"
"$BIN/gen" -notices $NOTICES -components $COMPONENTS -seed $SEED -o "$WORK/page.json" -meta "$WORK/page.env"
# shellcheck disable=SC1091
. "$WORK/page.env"
log "importing ($(du -h "$WORK/page.json" | cut -f1))"
timeout 300 "$BIN/statusd" import --db "$DB" "$WORK/page.json" >&2
TOKEN=$(timeout 60 "$BIN/statusd" token create --db "$DB" --name bench 2>/dev/null)

log "starting statusd"
PORT=$("$BIN/probe" freeport)
T0=$(date +%s%N)
# --max-conns-per-client 0: every generator here (wrk, bench/load with up
# to 1,024 connections) is one client, 127.0.0.1, by design; the cap per
# client (256 by default) would refuse most of the overload's connections
# and measure the cap, not the server.
"${SERVER[@]}" "$BIN/statusd" serve --db "$DB" --addr 127.0.0.1:$PORT --rate-limit 0 --variant a \
	--max-in-flight $MAX_IN_FLIGHT --max-conns-per-client 0 2>"$WORK/statusd.log" 9>&- &
SPID=$!
PIDS+=($SPID)
S=http://127.0.0.1:$PORT
timeout 90 "$BIN/probe" ready -url "$S/api/v1/status" -since "$T0" >>"$RESULTS"

read -r START TODAY < <("$BIN/probe" dates)
# The throughput and latency runs ask for the 12 months to yesterday: a
# window that has ended, whose answer holds until midnight. A window to
# today is cut at now and changes every second (its total_time grows), so
# it can never be answered 304; the first request after a write asks for
# that one.
YESTERDAY=$(date -u -d "$TODAY - 1 day" +%F)
LIVE_METRICS_PATH="/api/v1/components/$METRICS_PARENT_ID/metrics?timeframe_start=$START&timeframe_end=$TODAY"
cat >"$WORK/requests.tsv" <<EOF
status	/api/v1/status
components	/api/v1/components?page=2
notices	/api/v1/notices?page=3&filter[type_eq]=unplanned
notice	/api/v1/notices/$NOTICE_ID
metrics	/api/v1/components/$METRICS_PARENT_ID/metrics?timeframe_start=$START&timeframe_end=$YESTERDAY
html	/
EOF

log "warming up the JSON API, then resident memory"
while IFS=$'\t' read -r name path; do
	[ "$name" = html ] && continue
	for h in "" "Accept-Encoding: gzip"; do
		timeout 30 "${CLIENT[@]}" wrk -t1 -c8 -d1s ${h:+-H "$h"} "$S$path" >/dev/null
	done
done <"$WORK/requests.tsv"
settle $SPID
rss_record $SPID warm

log "capturing statusd's answers for the baseline"
timeout 300 "$BIN/baseline" capture -statusd "$S" -requests "$WORK/requests.tsv" -o "$WORK/capture.json" -kinds "$WORK/kinds.tsv"
while read -r line; do note "${line#\# }"; done < <(grep '^#' "$WORK/kinds.tsv" || true)
settle $SPID
if grep -q '^html' "$WORK/kinds.tsv"; then
	timeout 120 "$BIN/probe" time -name html_request -url "$S/" -n 3 >>"$RESULTS" || note "timing / failed"
	settle $SPID
else
	note "/ did not answer 200: the HTML page is not measured"
fi

# start_baseline NAME VAR starts a baseline on a free port and sets VAR to
# its URL.
start_baseline() {
	local port pid
	port=$("$BIN/probe" freeport)
	"${SERVER[@]}" "$BIN/baseline" serve -capture "$WORK/capture.json" -addr 127.0.0.1:$port \
		>/dev/null 2>"$WORK/$1.log" 9>&- &
	pid=$!
	PIDS+=($pid)
	wait_listening "$WORK/$1.log" $pid >/dev/null
	printf -v "$2" 'http://127.0.0.1:%s' "$port"
	printf -v "${2}_PID" '%s' "$pid"
}
start_baseline baseline B
start_baseline baseline2 B2

server_url() {
	case $1 in statusd) echo "$S" ;; baseline) echo "$B" ;; baseline2) echo "$B2" ;; esac
}

# run_wrk PHASE NAME VARIANT SERVER ROUND PATH HEADER: one throughput run.
run_wrk() {
	local phase=$1 name=$2 variant=$3 server=$4 round=$5 path=$6 header=$7 out rps non2xx errs
	local args=(-t1 -c$WRK_C -d${WRK_D}s)
	# The HTML page is large and slow: fewer connections, a longer timeout.
	[ "$name" = html ] && args=(-t1 -c4 -d${WRK_D}s --timeout 10s)
	out=$(timeout $((WRK_D + 30)) "${CLIENT[@]}" wrk "${args[@]}" ${header:+-H "$header"} "$(server_url "$server")$path" 2>&1) || true
	rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
	non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' <<<"$out")
	errs=$(grep -o 'Socket errors:.*' <<<"$out" || true)
	record "{\"kind\":\"wrk\",\"phase\":\"$phase\",\"req\":\"$name\",\"variant\":\"$variant\",\"server\":\"$server\",\"round\":$round,\"rps\":${rps:-0},\"non2xx\":${non2xx:-0},\"errors\":\"$(json_str "$errs")\"}"
	printf '  %-7s %-10s %-5s %-9s round %d: %s req/s%s\n' "$phase" "$name" "$variant" "$server" "$round" "${rps:-?}" "${errs:+ ($errs)}" >&2
	# The HTML page is large: let the server finish before the next run.
	if [ "$name" = html ]; then
		case $server in statusd) settle $SPID ;; baseline) settle "$B_PID" ;; esac
	fi
	# An ETag can go stale during the rounds (an answer that depends on
	# the time): record what each If-None-Match run was answered.
	if [ "$variant" = inm ] && [ "$phase" = main ]; then check "$name" "$variant" "$server" "$path" "$header" "$round"; fi
}

# check NAME VARIANT SERVER PATH HEADER ROUND records the status one request
# of a kind is answered with.
check() {
	local code
	code=$(curl -gs -o /dev/null -w '%{http_code}' --max-time 30 ${5:+-H "$5"} "$(server_url "$3")$4") || true
	record "{\"kind\":\"check\",\"req\":\"$1\",\"variant\":\"$2\",\"server\":\"$3\",\"round\":$6,\"status\":${code:-0}}"
}

log "checking what each request kind answers"
while IFS=$'\t' read -r name variant path header _; do
	[[ $name == \#* ]] && continue
	[ "$header" = - ] && header=
	for server in statusd baseline; do check "$name" "$variant" "$server" "$path" "$header" 0; done
done <"$WORK/kinds.tsv"
settle $SPID

log "throughput: $ROUNDS interleaved rounds of wrk -t1 -c$WRK_C -d${WRK_D}s"
CONTROL_KINDS=("status plain" "notices plain")
for round in $(seq $ROUNDS); do
	# Alternate which server goes first, so that order does not favour one.
	for kind in "${CONTROL_KINDS[@]}"; do
		read -r name variant <<<"$kind"
		path=$(awk -F'\t' -v n="$name" -v v="$variant" '$1 == n && $2 == v {print $3}' "$WORK/kinds.tsv")
		if [ $((round % 2)) = 1 ]; then order=(baseline baseline2); else order=(baseline2 baseline); fi
		for server in "${order[@]}"; do run_wrk control "$name" "$variant" "$server" "$round" "$path" ""; done
	done
	while IFS=$'\t' read -r name variant path header _; do
		[[ $name == \#* ]] && continue
		[ "$header" = - ] && header=
		if [ $((round % 2)) = 1 ]; then order=(statusd baseline); else order=(baseline statusd); fi
		for server in "${order[@]}"; do run_wrk main "$name" "$variant" "$server" "$round" "$path" "$header"; done
	done <"$WORK/kinds.tsv"
done

run_load() {
	local name=$1 url=$2 out
	shift 2
	out=$(timeout 120 "${CLIENT[@]}" "$BIN/load" -url "$url" -json -label "$name" "$@") || {
		note "bench/load failed for $name"
		return 0
	}
	record "{\"kind\":\"load\",\"name\":\"$(json_str "$name")\",\"result\":$out}"
	settle $SPID
}

log "latency: open loop at 5,000 req/s on every JSON request (${LAT_D}s each)"
while IFS=$'\t' read -r name path; do
	[ "$name" = html ] && continue
	run_load "5k $name" "$S$path" -rate 5000 -duration ${LAT_D}s -conns 64 -max-conns 64
done <"$WORK/requests.tsv"

log "latency: open loop at 20,000 req/s on /api/v1/status (${LAT20_D}s), statusd then the baseline"
run_load "20k status" "$S/api/v1/status" -rate 20000 -duration ${LAT20_D}s -conns 64 -max-conns 64
run_load "20k status (baseline)" "$B/api/v1/status" -rate 20000 -duration ${LAT20_D}s -conns 64 -max-conns 64

CAPACITY=$("$BIN/report" -results "$RESULTS" -median status/plain/statusd)
log "overload: 2 x $CAPACITY req/s (the wrk median of /api/v1/status) for ${OVER_D}s"
run_load "overload status" "$S/api/v1/status" -rate $((2 * CAPACITY)) -duration ${OVER_D}s -conns 256 -max-conns 1024

# The writes are timed on a server at rest, the overload's backlog
# drained, so that a 503 left over from the overload is not taken for the
# answer after a write.
settle $SPID
sleep 1

log "12-month metrics, first request after a write ($TRIALS writes)"
timeout 600 "$BIN/probe" after-write -url "$S" -token "$TOKEN" -notice "$WRITE_NOTICE_ID" -path "$LIVE_METRICS_PATH" -n $TRIALS >>"$RESULTS"
settle $SPID

log "a write visible in the public API ($TRIALS writes)"
timeout 600 "$BIN/probe" visible -url "$S" -token "$TOKEN" -notice "$WRITE_NOTICE_ID" -n $TRIALS >>"$RESULTS"

rss_record $SPID end
LOAD_AFTER=$(loadavg)
DIRTY=$(git -C "$ROOT" status --porcelain 2>/dev/null | wc -l)
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ "$DIRTY" -gt 0 ]; then COMMIT="$COMMIT (dirty: $DIRTY files changed or untracked)"; fi
CPU=$(lscpu | awk -F: '/^Model name/ {gsub(/^ +/, "", $2); print $2; exit}')
META=$(
	cat <<EOF
{"kind":"meta","meta":{
"mode":"$MODE",
"date":"$(date -u '+%Y-%m-%d %H:%M')",
"nproc":"$(nproc)",
"cpu":"$(json_str "$CPU")",
"kernel":"Linux $(uname -r)",
"commit":"$(json_str "$COMMIT")",
"go":"$(go env GOVERSION)",
"wrk":"$(json_str "$(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)")",
"loadavg_before":"$LOAD_BEFORE",
"loadavg_after":"$LOAD_AFTER",
"max_in_flight":"$MAX_IN_FLIGHT",
"notices_short":"$((NOTICES / 1000))k",
"dataset":"bench/gen -seed $SEED: $NOTICES notices ($UNPLANNED unplanned, $PLANNED planned, $GENERAL general; one open incident), $COMPONENTS components two levels deep, a year of history; notice $NOTICE_ID, metrics of component $METRICS_PARENT_ID from $START to $YESTERDAY (after a write: to $TODAY)",
"throughput_method":"wrk -t1 -c$WRK_C -d${WRK_D}s (the HTML page: -c4 --timeout 10s), $ROUNDS rounds, statusd and the baseline interleaved (which goes first alternates)",
"placement":"$(json_str "$PLACEMENT")",
"latency_method":"bench/load, open loop, ${LAT_D}s at 5,000 req/s per JSON request, ${LAT20_D}s at 20,000 req/s, ${OVER_D}s at 2x capacity; latency from the intended send time"
}}
EOF
)
record "$(tr -d '\n' <<<"$META")"

log "stopping the servers"
for pid in "${PIDS[@]}"; do stop_pid "$pid"; done

OUT=$BENCH/results
[ "$MODE" = quick ] && OUT=$OUT-quick
[ $UNPINNED = 1 ] && OUT=$OUT-unpinned
OUT=$OUT.md
"$BIN/report" -results "$RESULTS" -o "$OUT"
cp "$RESULTS" "${OUT%.md}.jsonl"
echo >&2
echo "written: $OUT (raw measurements: ${OUT%.md}.jsonl); took $SECONDS s" >&2
