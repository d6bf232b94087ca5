# Conveniences around the go tool; CI runs .ci/run.
FUZZTIME ?= 10m

.PHONY: test race fuzz bench bench-quick soak

test:
	go test ./...

race:
	go test -race -count=1 ./...

# The long fuzz runs (CI runs each for 20 s): FUZZTIME per target.
fuzz:
	go test ./internal/api -run '^$$' -fuzz '^FuzzQuery$$' -fuzztime $(FUZZTIME)
	go test . -run '^$$' -fuzz '^FuzzDecodeDocument$$' -fuzztime $(FUZZTIME)
	go test ./internal/admin -run '^$$' -fuzz '^FuzzAdminBodies$$' -fuzztime $(FUZZTIME)

# Go benchmarks of the hot paths, then the load harness (bench/README.md).
bench:
	go test ./internal/snapshot ./internal/api -run '^$$' -bench . -benchmem
	bash bench/run.sh

bench-quick:
	bash bench/run.sh --quick

soak:
	STATUSD_SOAK=1 go test -count=1 -run Soak ./cmd/statusd
