package main

import (
	"context"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	commands "github.com/statusd/statusd/internal/cli"
	"github.com/statusd/statusd/internal/connlimit"
	"github.com/statusd/statusd/internal/mirror"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/web"
)

// fromMirror is the configuration of statusd serve --from-mirror: a
// read-only statusd on other infrastructure that serves the copy a
// mirror holds, with the live routing, instead of a database (CONTRACT
// C10, "Serving the copy").
type fromMirror struct {
	url, keyFile string
	refresh      time.Duration
}

// flags defines the flags of --from-mirror, each also read from its
// variable.
func (f *fromMirror) flags(fs commands.EnvFlags) {
	fs.String(&f.url, "from-mirror", "", "serve, read-only, the copy of the page a mirror `URL` holds (file:///dir, s3://bucket/prefix or https://host/path) instead of a database, which is not opened")
	fs.String(&f.keyFile, "mirror-key", "", "with --from-mirror, the `file` of the public key (PEM, from statusd mirror key) the copy must be signed with; without it the copy is served unverified")
	fs.Duration(&f.refresh, "from-mirror-refresh", mirror.DefaultRefresh, "how often --from-mirror looks for a new copy")
}

// serveFromMirror serves the copy of --from-mirror on --addr (an s3://
// one through --mirror-endpoint and --mirror-region), refreshing it every
// --from-mirror-refresh, until cmd's context ends; then it
// drains the requests in flight, as serve does.
func (c *serveConfig) serveFromMirror(cmd *cobra.Command) error {
	f, log, ctx := c.from, c.log, cmd.Context()
	switch {
	case c.adminAddr != "" || c.demo:
		return commands.UsageError(cmd, "--from-mirror serves a read-only copy: it has no admin API (--admin-addr) and no database (--demo)")
	case f.refresh <= 0:
		return commands.UsageError(cmd, "--from-mirror-refresh must be > 0, got %v", f.refresh)
	}
	src := mirror.Source{}
	var err error
	if src.Bucket, err = mirror.Open(f.url, mirror.Options{Endpoint: c.mirrorEndpoint, Region: c.mirrorRegion}.WithEnv(c.getenv)); err != nil {
		return commands.Errorf(commands.ExitUsage, "--from-mirror: %w", err)
	}
	if f.keyFile == "" {
		log.Warn("no --mirror-key: the copy is served unverified, as whoever could write to the mirror wrote it", "mirror", src.Bucket.String())
	} else if src.Key, err = mirror.ReadPublicKey(f.keyFile); err != nil {
		return commands.Errorf(commands.ExitUsage, "--mirror-key: %w; print the key with statusd mirror key", err)
	}
	listeners, err := listen(ctx, c.getenv, []string{c.addr})
	if err != nil {
		return err
	}
	defer listeners[0].Close() // when serving ended before it began; else already closed
	copies := mirror.NewServer(route.NewErrors(log, web.New(web.Config{Log: log}).ErrorPage), time.Now)
	followCtx, stopFollowing := context.WithCancel(ctx)
	defer stopFollowing()
	go copies.Follow(followCtx, src, f.refresh, log)
	srv := newHTTPServer(copies, log)
	listeners[0] = connlimit.New(c.maxConns, c.maxConnsPerClient, c.trusted, log).Listen(listeners[0], srv)
	log.Info("statusd listening, serving a mirror's copy read-only", "url", "http://"+listeners[0].Addr().String(),
		"mirror", src.Bucket.String(), "refresh", f.refresh)
	return serveAll(ctx, []*http.Server{srv}, listeners, log)
}
