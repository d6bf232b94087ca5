package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// DBUsage is the help of every --db flag that takes both kinds of database.
const DBUsage = "the `database`: a SQLite file path or a postgres:// URL"

// envAnnotation marks the flags that read a STATUSD_* variable.
const envAnnotation = "statusd_env"

// EnvFlags adds flags that also read STATUSD_* environment variables to
// a command: a flag given on the command line wins over the variable,
// which wins over the default. A variable with a bad value is an error, as
// a bad flag is; the variable's value never shows in -h. Such a flag given
// an empty value on the command line is a usage error: never the
// variable's value instead, nor silently none.
type EnvFlags struct{ fs *pflag.FlagSet }

// WithEnv returns the EnvFlags of c.
func WithEnv(c *cobra.Command) EnvFlags { return EnvFlags{c.Flags()} }

// envName is the environment variable of a flag: --base-url is STATUSD_BASE_URL.
func envName(flagName string) string {
	return "STATUSD_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// withEnv marks the flag name as reading its variable, which its help names.
func (e EnvFlags) withEnv(name string) {
	f := e.fs.Lookup(name)
	f.Usage += " ($" + envName(name) + ")"
	if err := e.fs.SetAnnotation(name, envAnnotation, nil); err != nil {
		panic(err) // the flag was just defined
	}
}

// String defines a string flag.
func (e EnvFlags) String(p *string, name, def, usage string) {
	e.fs.StringVar(p, name, def, usage)
	e.withEnv(name)
}

// Duration defines a time.Duration flag.
func (e EnvFlags) Duration(p *time.Duration, name string, def time.Duration, usage string) {
	e.fs.DurationVar(p, name, def, usage)
	e.withEnv(name)
}

// Int defines an int flag.
func (e EnvFlags) Int(p *int, name string, def int, usage string) {
	e.fs.IntVar(p, name, def, usage)
	e.withEnv(name)
}

// Float64 defines a float64 flag.
func (e EnvFlags) Float64(p *float64, name string, def float64, usage string) {
	e.fs.Float64Var(p, name, def, usage)
	e.withEnv(name)
}

// Bool defines a bool flag, false by default.
func (e EnvFlags) Bool(p *bool, name, usage string) {
	e.fs.BoolVar(p, name, false, usage)
	e.withEnv(name)
}

// Strings defines a flag that may be given more than once, read from its
// variable (one value) when it is not given.
func (e EnvFlags) Strings(p *[]string, name, usage string) {
	e.fs.StringArrayVar(p, name, nil, usage)
	e.withEnv(name)
}

// applyEnv refuses an empty value given on the command line to a flag of
// c that reads a variable, and gives the flags not set on the command
// line their variable's value.
func applyEnv(c *cobra.Command, getenv func(string) string) error {
	var err error
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if _, ok := f.Annotations[envAnnotation]; !ok || err != nil {
			return
		}
		if f.Changed {
			if strings.TrimSpace(f.Value.String()) == "" {
				err = UsageError(c, "--%s is empty; give it a value, or leave it out to use $%s or the default", f.Name, envName(f.Name))
			}
			return
		}
		v := getenv(envName(f.Name))
		if v == "" {
			return
		}
		if serr := f.Value.Set(v); serr != nil {
			err = Errorf(ExitUsage, "$%s: %q is not a valid value for --%s: %v", envName(f.Name), v, f.Name, serr)
		}
		f.Changed = true // as good as given: audit --url reads the server $STATUSD_URL names
	})
	return err
}

// flagError is the usage error of a flag that does not parse, worded as
// the documentation and the flag package word it.
func flagError(c *cobra.Command, err error) error {
	var notExist *pflag.NotExistError
	var noValue *pflag.ValueRequiredError
	var invalid *pflag.InvalidValueError
	switch {
	case errors.As(err, &notExist):
		err = fmt.Errorf("flag provided but not defined: %s", typed(notExist.GetSpecifiedName(), notExist.GetSpecifiedShortnames()))
		long, _, _ := strings.Cut(notExist.GetSpecifiedShortnames(), "=")
		if len(long) > 1 && c.Flags().Lookup(long) != nil {
			err = fmt.Errorf("%w (a long flag takes two dashes: --%s)", err, long) // -db, as the flag package took it
		}
	case errors.As(err, &noValue):
		err = fmt.Errorf("flag needs an argument: %s", typed(noValue.GetSpecifiedName(), noValue.GetSpecifiedShortnames()))
	case errors.As(err, &invalid):
		cause := errors.Unwrap(invalid)
		var num *strconv.NumError
		if errors.As(cause, &num) {
			cause = num.Err // "invalid syntax", without strconv's words
		}
		err = fmt.Errorf("invalid value %q for flag -%s: %v", invalid.GetValue(), invalid.GetFlag().Name, cause)
	}
	return UsageError(c, "%v", err)
}

// typed is a flag as it was typed: -x when it was among shorthands, else
// --name.
func typed(name, shorthands string) string {
	if shorthands != "" {
		return "-" + name
	}
	return "--" + name
}

// writeFlags writes the help of the flags of fs, two lines each: the flag
// with its placeholder, the backquoted word of its help ("the `URL` of"),
// then its help and its default.
func writeFlags(w io.Writer, fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		placeholder, usage := pflag.UnquoteUsage(f)
		line := "  --" + f.Name
		if f.Shorthand != "" {
			line = "  -" + f.Shorthand + ", --" + f.Name
		}
		if placeholder != "" && f.NoOptDefVal == "" {
			line += " " + placeholder
		}
		fmt.Fprintf(w, "%s\n    \t%s%s\n", line, strings.ReplaceAll(usage, "\n", "\n    \t"), defaultText(f))
	})
}

// defaultText is " (default X)" for a flag whose default is not its zero
// value, quoted for a string.
func defaultText(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return ""
	}
	if f.Value.Type() == "string" {
		return fmt.Sprintf(" (default %q)", f.DefValue)
	}
	return " (default " + f.DefValue + ")"
}
