package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	commands "github.com/statusd/statusd/internal/cli"
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

// versionCommand is statusd version.
func versionCommand(env commands.Env) *cobra.Command {
	cmd := commands.Command("version", "print the version, commit and Go version")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return commands.UsageError(cmd, "takes no arguments, got %q", args)
		}
		_, err := io.WriteString(env.Stdout, versionText())
		return err
	}
	return cmd
}

// versionText is what statusd version and statusd --version print: the
// version, the commit and the Go version.
func versionText() string {
	v, c := buildVersion()
	return fmt.Sprintf("statusd %s\ncommit  %s\ngo      %s %s/%s\n", v, c, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
