#!/usr/bin/env bash
# Builds Prometheus Alertmanager v0.35.0 once per machine and prints the
# path of its binary, for the tests (internal/testenv runs this script) and
# for people and benchmarks.
#
#   bash bench/alertmanager.sh        build it unless it is there; print its path
#
# The binary is kept where Go's os.UserCacheDir puts a user's cache:
# $XDG_CACHE_HOME (or ~/.cache; ~/Library/Caches on macOS), under
# statusd-test/alertmanager-v0.35.0/alertmanager.
#
# `go install github.com/prometheus/alertmanager/cmd/alertmanager@v0.35.0`
# does not work: the module embeds its web UI (ui/app/dist), which is built
# by npm and is not in the module. So this takes the module from the Go
# module proxy, copies it to a temporary folder, puts an empty page where the
# UI would be (the tests only use the API) and builds cmd/alertmanager there,
# with the module's own go.mod and go.sum, as Alertmanager's release build
# does (tag netgo, the version stamped in). Needs Go 1.26 or newer (the
# module's go.mod asks for go 1.26.0) and the Go module proxy; about a minute
# the first time. Two runs at once build it once: the second waits on a lock
# (flock, where there is one) and the binary appears by an atomic rename.
set -euo pipefail

VERSION=v0.35.0
MODULE=github.com/prometheus/alertmanager

case $(uname -s) in
Darwin) cache=$HOME/Library/Caches ;;
*) cache=${XDG_CACHE_HOME:-$HOME/.cache} ;;
esac
case $cache in
/*) ;;
*)
	echo "alertmanager.sh: no absolute cache folder (set HOME or XDG_CACHE_HOME)" >&2
	exit 1
	;;
esac
DIR=$cache/statusd-test/alertmanager-$VERSION
BIN=$DIR/alertmanager

if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
	sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
fi

# have says whether a working binary of this version is in the cache.
have() {
	[ -x "$BIN" ] && "$BIN" --version 2>&1 | grep -q "version ${VERSION#v} "
}

if have; then
	echo "$BIN"
	exit 0
fi

command -v go >/dev/null || {
	echo "alertmanager.sh: Go is needed to build Alertmanager $VERSION (https://go.dev/dl/)" >&2
	exit 1
}
mkdir -p "$DIR"
if command -v flock >/dev/null; then
	exec 8>"$DIR/build.lock"
	if ! flock -n 8; then
		echo "alertmanager.sh: another build of Alertmanager $VERSION is under way; waiting for it (at most 10 minutes)" >&2
		flock -w 600 8 || {
			echo "alertmanager.sh: gave up waiting for the other build" >&2
			exit 1
		}
	fi
	# The build that held the lock may have made it meanwhile.
	if have; then
		echo "$BIN"
		exit 0
	fi
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/statusd-alertmanager-build.XXXXXX")
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT

# The build must not see the caller's module, workspace or flags (an empty
# GOFLAGS would let `go env -w GOFLAGS=...` through): the copy is a module
# of its own, and its go.sum is complete.
export GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0
cd "$WORK"
echo "alertmanager.sh: building Alertmanager $VERSION into $BIN (about a minute the first time)" >&2
json=$(go mod download -json "$MODULE@$VERSION") || {
	echo "alertmanager.sh: could not download $MODULE@$VERSION from the Go module proxy (GOPROXY=$(go env GOPROXY)):" >&2
	echo "$json" >&2
	exit 1
}
src=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
if [ -z "$src" ] || [ ! -f "$src/go.mod" ]; then
	echo "alertmanager.sh: go mod download gave no module folder:" >&2
	echo "$json" >&2
	exit 1
fi

# The module cache is read-only; the copy must be writable.
cp -R "$src" "$WORK/src"
chmod -R u+w "$WORK/src"

# ui/web.go embeds app/dist and serves app/dist/elm (the UI at /) and
# app/dist/mantine (the UI at /ui/); an embed pattern needs at least one
# file, so each gets an empty index.html.
mkdir -p "$WORK/src/ui/app/dist/elm" "$WORK/src/ui/app/dist/mantine"
: >"$WORK/src/ui/app/dist/elm/index.html"
: >"$WORK/src/ui/app/dist/mantine/index.html"

cd "$WORK/src"
v=github.com/prometheus/common/version
go build -trimpath -tags netgo \
	-ldflags "-X $v.Version=${VERSION#v} -X $v.Revision=$VERSION -X $v.Branch=HEAD -X $v.BuildUser=statusd-bench-alertmanager.sh" \
	-o "$DIR/alertmanager.tmp.$$" ./cmd/alertmanager || {
	rm -f "$DIR/alertmanager.tmp.$$"
	echo "alertmanager.sh: building $MODULE/cmd/alertmanager@$VERSION failed" >&2
	exit 1
}
# A rename in one folder is atomic: whoever looks sees no binary or a whole one.
mv -f "$DIR/alertmanager.tmp.$$" "$BIN"
have || {
	echo "alertmanager.sh: the binary built does not say version ${VERSION#v}:" >&2
	"$BIN" --version >&2 || true
	exit 1
}
echo "$BIN"
