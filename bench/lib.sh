# Shared by bench/run.sh and bench/fanout.sh (sourced). NAME is the
# calling script's name, for its messages.

# bench_needs NAME TOOL... stops the script when a tool is missing or the
# machine has fewer than 2 cores (statusd on one, the load on the other).
bench_needs() {
	local name=$1 tool
	shift
	for tool in "$@"; do
		command -v "$tool" >/dev/null || {
			echo "$name: $tool is needed (wrk: apt-get install wrk)" >&2
			exit 1
		}
	done
	[ "$(nproc)" -ge 2 ] || {
		echo "$name: needs 2 cores (one for statusd, one for the load)" >&2
		exit 1
	}
}

# bench_lock NAME takes the machine's benchmark lock on descriptor 9,
# waiting up to 20 minutes for a run that holds it: two runs at once
# would measure each other. Children that may outlive the script get 9>&-.
bench_lock() {
	exec 9>"${TMPDIR:-/tmp}/statusd-bench.lock"
	flock -n 9 && return 0
	echo "$1: another benchmark is running on this machine; waiting for it to end (at most 20 minutes)" >&2
	flock -w 1200 9 || {
		echo "$1: gave up waiting for the other run" >&2
		exit 1
	}
}

# bench_end NAME CODE removes the working folder $WORK, or keeps it (and
# says where) when $KEEP is 1 or the run failed, and exits with CODE.
bench_end() {
	if [ "$KEEP" = 1 ] || [ "$2" != 0 ]; then
		echo "$1: working folder kept: $WORK" >&2
	else
		rm -rf "$WORK"
	fi
	exit "$2"
}
