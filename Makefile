# Conveniences around the go tool; CI runs .ci/run.
FUZZTIME ?= 10m

.PHONY: test race fuzz bench bench-quick soak

test:
	go test ./...

# The race detector where goroutines meet, as CI runs it.
race:
	go test -race -short -count=1 $$(grep -v '^#' .ci/race-packages)

# The long fuzz runs: FUZZTIME per target of .ci/fuzz-targets (CI runs
# each for the budget written there).
fuzz:
	grep -v '^#' .ci/fuzz-targets | while read -r pkg target execs; do \
		[ -n "$$pkg" ] || continue; \
		go test "$$pkg" -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) </dev/null || exit 1; \
	done

# Go benchmarks of the hot paths, then the load harness (bench/README.md).
bench:
	go test ./internal/snapshot ./internal/api -run '^$$' -bench . -benchmem
	bash bench/run.sh

# The benchmark smoke run CI makes when what it runs changed.
bench-quick:
	bash bench/smoke.sh

soak:
	STATUSD_SOAK=1 go test -count=1 -run Soak ./cmd/statusd
