#!/usr/bin/env bash
# The benchmark smoke run: every Go benchmark once (a benchmark that errors
# fails; timings are not judged), then the harnesses quick (they must run
# through). CI runs it only when its inputs changed since the last passing
# run recorded in .ci/smoke.stamp; run it after changing a benchmark, the
# harnesses or a package with benchmarks, and commit the stamp it writes.
#
#   bash bench/smoke.sh               run it, and write .ci/smoke.stamp
#   bash bench/smoke.sh --if-changed  run it only when the stamp is out of date
set -euo pipefail
cd "$(dirname "$0")/.."

# stamp hashes what the smoke run exercises, as it is in the work tree:
# the code and scripts of bench/, every file of each package that has a Go
# benchmark, and the domain package's Go files (not docs, not results).
stamp() {
	{
		git ls-files -co --exclude-standard -- 'bench/*.go' 'bench/*.sh'
		grep -rl --include='*_test.go' '^func Benchmark' internal cmd 2>/dev/null |
			xargs -r -n1 dirname | sort -u | xargs -r git ls-files -co --exclude-standard -- |
			grep -v '\.md$'
		git ls-files -co --exclude-standard -- ':(glob)*.go'
	} | sort -u | xargs sha256sum | sha256sum | cut -d' ' -f1
}

if [ "${1:-}" = --if-changed ]; then
	if [ -f .ci/smoke.stamp ] && [ "$(cat .ci/smoke.stamp)" = "$(stamp)" ]; then
		echo "smoke: skipped, nothing it runs changed since the run recorded in .ci/smoke.stamp"
		exit 0
	fi
fi

echo "== every Go benchmark once"
go test ./... -run '^$' -bench . -benchtime 1x
echo "== the benchmark harnesses, quick"
bash bench/run.sh --quick
bash bench/fanout.sh --quick
bash bench/storm.sh --quick
bash bench/mirror.sh --quick
stamp >.ci/smoke.stamp
echo "smoke: passed; .ci/smoke.stamp written (commit it)"
