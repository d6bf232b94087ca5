package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version and commit are set at build time, for a release:
//
//	go build -ldflags "-X main.version=1.2.0 -X main.commit=$(git rev-parse HEAD)" ./cmd/statusd
//
// When they are not, the module version and the VCS revision that the Go
// toolchain recorded in the binary are used, when there are any.
var (
	version string
	commit  string
)

// buildVersion returns the version and commit of this binary: from
// -ldflags first, else from the build information ("devel" and "unknown"
// when there is none, as with go run or -buildvcs=false).
func buildVersion() (v, c string) {
	v, c = version, commit
	info, ok := debug.ReadBuildInfo()
	if ok && v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	if ok && c == "" {
		modified := false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				c = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if c != "" && modified {
			c += "-dirty"
		}
	}
	if v == "" {
		v = "devel"
	}
	if c == "" {
		c = "unknown"
	}
	return v, c
}

// versionCmd prints the version, the commit and the Go version.
func versionCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", "version", getenv, stderr)
	rest, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fs.usageErr("takes no arguments, got %q", rest)
	}
	v, c := buildVersion()
	fmt.Fprintf(stdout, "statusd %s\ncommit  %s\ngo      %s %s/%s\n", v, c, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
