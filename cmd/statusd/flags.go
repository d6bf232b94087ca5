package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// flagSet is a flag.FlagSet whose flags also read STATUSD_* environment
// variables: a flag given on the command line wins over the variable, which
// wins over the default.
type flagSet struct {
	*flag.FlagSet
	getenv func(string) string
}

func newFlagSet(name, synopsis string, getenv func(string) string, stderr io.Writer) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: statusd %s\n\nFlags (each also as the environment variable shown):\n", synopsis)
		fs.PrintDefaults()
	}
	return &flagSet{FlagSet: fs, getenv: getenv}
}

// envName is the environment variable of a flag: --base-url is STATUSD_BASE_URL.
func envName(flagName string) string {
	return "STATUSD_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func (fs *flagSet) str(p *string, name, def, usage string) {
	if v := fs.getenv(envName(name)); v != "" {
		def = v
	}
	fs.StringVar(p, name, def, usage+" ($"+envName(name)+")")
}

func (fs *flagSet) boolean(p *bool, name, usage string) {
	def := false
	switch strings.ToLower(fs.getenv(envName(name))) {
	case "1", "true", "yes", "on":
		def = true
	}
	fs.BoolVar(p, name, def, usage+" ($"+envName(name)+")")
}

// parse parses flags that may come before, between or after the positional
// arguments, and returns the positional arguments.
func (fs *flagSet) parse(args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "-" || !strings.HasPrefix(args[0], "-") {
			positional = append(positional, args[0])
			args = args[1:]
			continue
		}
		positional = append(positional, args...) // after "--"
		return positional, nil
	}
}
