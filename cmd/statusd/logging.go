package main

import (
	"fmt"
	"io"
	"log/slog"
)

// newLogger returns the server's logger: log/slog text (key=value) or JSON
// lines on w, from level up (serve --log-format, --log-level).
func newLogger(w io.Writer, format string, level slog.Level) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "text", "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format: %q is not text or json", format)
}
