package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// flagSet is a flag.FlagSet whose flags also read STATUSD_* environment
// variables: a flag given on the command line wins over the variable, which
// wins over the default. A variable with a bad value is an error, as a bad
// flag is; the variable's value never shows in -h. Such a flag given an
// empty value on the command line is a usage error: never the variable's
// value instead, nor silently none.
type flagSet struct {
	*flag.FlagSet
	synopsis string
	stderr   io.Writer
	getenv   func(string) string
	env      []string // the flags that read a variable
}

func newFlagSet(name, synopsis string, getenv func(string) string, stderr io.Writer) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: statusd %s\n", synopsis)
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintf(stderr, "\nFlags (each also as the environment variable shown):\n")
			fs.PrintDefaults()
		}
	}
	return &flagSet{FlagSet: fs, synopsis: synopsis, stderr: stderr, getenv: getenv}
}

// usageErr prints the synopsis and returns a usage error (exit code 2)
// that names the command.
func (fs *flagSet) usageErr(format string, args ...any) error {
	fmt.Fprintf(fs.stderr, "Usage: statusd %s\nRun \"statusd %s -h\" for its flags.\n", fs.synopsis, fs.Name())
	return exitErrorf(exitCodeUsage, "%s: %s", fs.Name(), fmt.Sprintf(format, args...))
}

// dbUsage is the help of every --db flag that takes both kinds of database.
const dbUsage = "the `database`: a SQLite file path or a postgres:// URL"

// envName is the environment variable of a flag: --base-url is STATUSD_BASE_URL.
func envName(flagName string) string {
	return "STATUSD_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func (fs *flagSet) withEnv(name, usage string) string {
	fs.env = append(fs.env, name)
	return usage + " ($" + envName(name) + ")"
}

func (fs *flagSet) str(p *string, name, def, usage string) {
	fs.StringVar(p, name, def, fs.withEnv(name, usage))
}

func (fs *flagSet) duration(p *time.Duration, name string, def time.Duration, usage string) {
	fs.DurationVar(p, name, def, fs.withEnv(name, usage))
}

func (fs *flagSet) integer(p *int, name string, def int, usage string) {
	fs.IntVar(p, name, def, fs.withEnv(name, usage))
}

func (fs *flagSet) boolean(p *bool, name, usage string) {
	fs.BoolVar(p, name, false, fs.withEnv(name, usage))
}

// applyEnv refuses an empty value given on the command line to a flag that
// reads a variable, and gives the flags not set on the command line their
// variable's value.
func (fs *flagSet) applyEnv() error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, name := range fs.env {
		if given[name] {
			if strings.TrimSpace(fs.Lookup(name).Value.String()) == "" {
				return fs.usageErr("--%s is empty; give it a value, or leave it out to use $%s or the default", name, envName(name))
			}
			continue
		}
		v := fs.getenv(envName(name))
		if v == "" {
			continue
		}
		if err := fs.Set(name, v); err != nil {
			return exitErrorf(exitCodeUsage, "$%s: %q is not a valid value for --%s: %v", envName(name), v, name, err)
		}
	}
	return nil
}

// parse parses flags that may come before, between or after the positional
// arguments, and returns the positional arguments. Its errors are usage
// errors, but for flag.ErrHelp when -h asked for help, which run answers
// with success.
func (fs *flagSet) parse(args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &exitError{Code: exitCodeUsage, Err: err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, fs.applyEnv()
		}
		if args[0] == "-" || !strings.HasPrefix(args[0], "-") {
			positional = append(positional, args[0])
			args = args[1:]
			continue
		}
		positional = append(positional, args...) // after "--"
		return positional, fs.applyEnv()
	}
}
