package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/api"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/automation"
	commands "github.com/statusd/statusd/internal/cli"
	"github.com/statusd/statusd/internal/connlimit"
	"github.com/statusd/statusd/internal/console"
	"github.com/statusd/statusd/internal/demo"
	"github.com/statusd/statusd/internal/mirror"
	"github.com/statusd/statusd/internal/notify"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/server"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/sqlstore"
	"github.com/statusd/statusd/internal/telemetry"
	"github.com/statusd/statusd/internal/web"
)

// watchInterval is how often the server checks the store for writes made by
// other processes, such as statusd import.
const watchInterval = 250 * time.Millisecond

// serveConfig is the configuration of statusd serve: its flags, and what
// parse makes of them; Run serves with it.
type serveConfig struct {
	maxAge, staleWhileRevalidate, staleIfError                     time.Duration
	maxInFlight, maxConns, maxConnsPerClient                       int
	db, addr, adminAddr, baseURL, redisURL, logFormat              string
	demo, metricsPublic, hooksPublic, allowPrivate, oidcTrustEmail bool
	smtpURL, mailFrom                                              string
	smtpRate                                                       float64
	confirmationsPerHour                                           int
	retryBase, reminder, lease, keep                               time.Duration
	consoleURL, oidcIssuer, oidcClientID, oidcClientSecret         string
	mirrorURLs                                                     []string
	mirrorEndpoint, mirrorRegion                                   string
	mirrorHeartbeat, mirrorStaleAfter                              time.Duration
	variantFlag, rateLimitFlag, trustedFlag, logLevelFlag          string // parse reads them into the fields below

	variant statusd.Variant
	limit   float64 // requests per second per client; 0: no limit
	trusted []netip.Prefix
	oidc    *console.OIDC // nil: no sign-in with OpenID Connect
	mirrors []mirror.Bucket
	log     *slog.Logger
	getenv  func(string) string // for LISTEN_FDS and LISTEN_PID
	from    fromMirror          // --from-mirror and its flags (frommirror.go)
}

// serveCommand is statusd serve: the flags parsed into a serveConfig,
// which then runs until ctx ends.
func serveCommand(env commands.Env) *cobra.Command {
	c := &serveConfig{getenv: env.Getenv}
	cmd := commands.Command("serve [flags]", "run the server (statusd serve --demo to try it)")
	c.flags(commands.WithEnv(cmd))
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := c.parse(cmd, args, env.Stderr); err != nil {
			return err
		}
		if c.from.url != "" {
			return c.serveFromMirror(cmd)
		}
		return c.Run(cmd.Context())
	}
	return cmd
}

// flags defines serve's flags, each also read from its variable.
func (c *serveConfig) flags(fs commands.EnvFlags) {
	fs.String(&c.db, "db", "statusd.db", commands.DBUsage+"; created and migrated at start")
	fs.String(&c.addr, "addr", "127.0.0.1:8080", "`host:port` to listen on (unless listening sockets are handed over: LISTEN_FDS)")
	fs.String(&c.adminAddr, "admin-addr", "", "`host:port` for the admin API on a listener of its own (default: on --addr)")
	fs.String(&c.variantFlag, "variant", "a", "API `variant`: a (with component metrics) or b (without)")
	fs.String(&c.baseURL, "base-url", "", "public `URL` of the page, replacing the stored one in every emitted url")
	fs.String(&c.rateLimitFlag, "rate-limit", "10", "`N` requests per second per client on the JSON API; 0 turns the limit off")
	fs.String(&c.redisURL, "redis", "", "Redis `URL` (redis://host:port/db) that makes the rate limit one limit across every replica")
	fs.String(&c.trustedFlag, "trusted-proxies", "", "comma-separated `CIDRs` of proxies whose X-Forwarded-For is believed")
	fs.String(&c.logLevelFlag, "log-level", "info", "log `level`: debug, info, warn or error")
	fs.String(&c.logFormat, "log-format", "text", "log `format`: text (key=value) or json (one object a line)")
	fs.Bool(&c.metricsPublic, "metrics-public", "serve /metrics without a token (default: an admin token is required)")
	fs.Bool(&c.hooksPublic, "hooks-public", "serve the alert sources' hooks (/hooks/v1/...) on the public listener too, for senders hosted elsewhere (default: only with the admin API)")
	fs.Duration(&c.maxAge, "cache-max-age", 5*time.Second, "how long clients and CDNs may reuse an API answer (Cache-Control max-age)")
	fs.Duration(&c.staleWhileRevalidate, "cache-stale-while-revalidate", 30*time.Second, "how long a stale answer may be served while it is fetched again")
	fs.Duration(&c.staleIfError, "cache-stale-if-error", 24*time.Hour, "how long a stale answer may be served when statusd cannot answer")
	fs.Int(&c.maxInFlight, "max-in-flight", 512, "requests worked on at once, answers already cached not counted; past it, 503 at once (0: no bound)")
	fs.Int(&c.maxConns, "max-conns", connlimit.DefaultMax(), "connections open at once on both listeners; near it, idle ones are closed after 5 s; at it, the longest idle one makes room, or the new one is refused (0: no cap; the default leaves 128 of the descriptor limit for the database and logs)")
	fs.Int(&c.maxConnsPerClient, "max-conns-per-client", 256, "connections open at once from one client address, not counting --trusted-proxies; past it, a new one is refused (0: no cap)")
	fs.String(&c.smtpURL, "smtp-url", "", "SMTP server `URL` to send email through (smtp://[user:pass@]host:port, or smtps:// for implicit TLS); turns email subscription on")
	fs.String(&c.mailFrom, "mail-from", "", "the `sender` of every email, \"Name <addr>\" or addr; required with --smtp-url")
	fs.Float64(&c.smtpRate, "smtp-rate", notify.DefaultMailRate, "emails sent a second at most (hosted relays often allow fewer)")
	fs.Int(&c.confirmationsPerHour, "confirmations-per-hour", web.DefaultConfirmationsPerHour, "subscription requests that send an email an hour, over all addresses; past it the form answers as ever, sends nothing and logs it")
	fs.Duration(&c.retryBase, "notify-retry-base", notify.DefaultRetryBase, "the first retry's delay after a failed delivery; it doubles each time, up to an hour, for 24 hours")
	fs.Duration(&c.lease, "notify-lease", notify.DefaultLease, "how long a replica holds the deliveries it claimed before another may take them: what is left unsent when a replica dies goes out after it (at least "+notify.MinLease.String()+")")
	fs.Duration(&c.keep, "notify-keep", statusd.DeliveryRetention, "how long delivered and dropped deliveries stay in the delivery log, counted from their making (failed ones stay until their subscriber is deleted)")
	fs.Duration(&c.reminder, "maintenance-reminder", time.Hour, "how long before it begins a scheduled maintenance is reminded to subscribers (0: no reminders)")
	fs.Bool(&c.allowPrivate, "allow-private-targets", "allow webhook and chat URLs that are http or reach private addresses (intranets, tests)")
	fs.String(&c.consoleURL, "console-url", "", "the `URL` people reach the console's listener at (scheme and host; the console is its /manage): the base of setup links and of the OpenID Connect redirect URI, and https makes the session cookie Secure (default: the page's url, or unknown with --admin-addr)")
	fs.String(&c.oidcIssuer, "oidc-issuer", "", "the OpenID Connect provider's issuer `URL` (https, exactly as the provider writes it), for the console's sign-in with it; with --oidc-client-id and --oidc-client-secret; register the redirect URI <console URL>"+console.OIDCCallbackPath+" at the provider")
	fs.String(&c.oidcClientID, "oidc-client-id", "", "the console's client `id` at the OpenID Connect provider")
	fs.String(&c.oidcClientSecret, "oidc-client-secret", "", "the console's client `secret` at the OpenID Connect provider (never logged; better in STATUSD_OIDC_CLIENT_SECRET than on the command line)")
	fs.Bool(&c.oidcTrustEmail, "oidc-trust-email", "take the provider's email as verified when its ID token has no email_verified claim (Microsoft Entra ID); email_verified false is refused all the same")
	fs.Strings(&c.mirrorURLs, "mirror", "push a signed static copy of the public pages and API, on every change, to `URL`: s3://bucket/prefix or file:///dir (repeatable; S3 credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")
	fs.String(&c.mirrorEndpoint, "mirror-endpoint", "", "the S3 service's `URL` for an s3:// mirror (--mirror, --from-mirror) that is not on AWS (MinIO, R2, B2...): path-style addressing")
	fs.String(&c.mirrorRegion, "mirror-region", "us-east-1", "the S3 `region` of an s3:// mirror")
	fs.Duration(&c.mirrorHeartbeat, "mirror-heartbeat", mirror.DefaultHeartbeat, "the longest time between two pushes of the mirror's mirror.json, even when nothing changed (its generated_at tells readers the copy is fresh)")
	fs.Duration(&c.mirrorStaleAfter, "mirror-stale-after", mirror.DefaultStaleAfter, "how old a mirror's copy is when its pages say the live page may be unavailable")
	fs.Bool(&c.demo, "demo", "publish a demo page timed around now (refuses a database that holds another page)")
	c.from.flags(fs)
}

// parse checks the flags and the arguments of serve (there are none), and
// makes the logger, on stderr.
func (c *serveConfig) parse(cmd *cobra.Command, args []string, stderr io.Writer) error {
	if len(args) > 0 {
		return commands.UsageError(cmd, "takes no arguments, got %q", args)
	}
	if c.maxConns < 0 || c.maxConnsPerClient < 0 {
		return fmt.Errorf("--max-conns and --max-conns-per-client are numbers >= 0 (0: no cap), got %d and %d", c.maxConns, c.maxConnsPerClient)
	}
	var err error
	if c.variant, err = statusd.ParseVariant(c.variantFlag); err != nil {
		return commands.Errorf(commands.ExitUsage, "--variant: %w", err)
	}
	if c.limit, err = strconv.ParseFloat(c.rateLimitFlag, 64); err != nil || c.limit < 0 {
		return commands.Errorf(commands.ExitUsage, "--rate-limit: %q is not a number >= 0", c.rateLimitFlag)
	}
	if c.baseURL != "" {
		if err := statusd.CheckPageURL(c.baseURL); err != nil {
			return commands.Errorf(commands.ExitUsage, "--base-url: %v, such as https://status.example.com", err)
		}
	}
	if c.consoleURL != "" {
		if err := statusd.CheckPageURL(c.consoleURL); err != nil {
			return commands.Errorf(commands.ExitUsage, "--console-url: %v, such as https://admin.status.example.com", err)
		}
	}
	if c.oidc, err = c.parseOIDC(cmd); err != nil {
		return err
	}
	if c.smtpURL != "" && c.mailFrom == "" {
		return commands.UsageError(cmd, "--smtp-url needs --mail-from, the sender of the emails, such as \"Acme Status <status@acme.example>\"")
	}
	if c.smtpRate <= 0 || c.retryBase <= 0 || c.keep <= 0 || c.reminder < 0 || c.confirmationsPerHour <= 0 {
		return commands.UsageError(cmd, "--smtp-rate, --notify-retry-base, --notify-keep and --confirmations-per-hour must be > 0, and --maintenance-reminder >= 0")
	}
	if c.lease < notify.MinLease {
		return commands.UsageError(cmd, "--notify-lease: %v is too short; give at least %v", c.lease, notify.MinLease)
	}
	if c.trusted, err = parsePrefixes(c.trustedFlag); err != nil {
		return commands.Errorf(commands.ExitUsage, "--trusted-proxies: %w", err)
	}
	if c.mirrors, err = c.parseMirrors(cmd); err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevelFlag)); err != nil {
		return commands.Errorf(commands.ExitUsage, "--log-level: %q is not debug, info, warn or error", c.logLevelFlag)
	}
	if c.log, err = newLogger(stderr, c.logFormat, level); err != nil {
		return &commands.ExitError{Code: commands.ExitUsage, Err: err}
	}
	return nil
}

// Run wires the store, the snapshot, the server, the background workers
// and the listeners, and serves until ctx ends; then it drains the
// requests in flight.
func (c *serveConfig) Run(ctx context.Context) error {
	log, variant := c.log, c.variant
	// The listeners come first: a serve that cannot bind leaves no
	// database behind.
	addrs := []string{c.addr}
	if c.adminAddr != "" {
		addrs = append(addrs, c.adminAddr)
	}
	listeners, err := listen(ctx, c.getenv, addrs)
	if err != nil {
		return err
	}
	defer func() {
		for _, ln := range listeners {
			ln.Close() // when serving ended before it began; else already closed
		}
	}()
	store, err := sqlstore.Open(ctx, c.db)
	if err != nil {
		return err
	}
	defer store.Close()
	store.LogTo(log)
	if c.demo {
		if err := publishDemo(ctx, store, c.db); err != nil {
			return err
		}
		log.Info("the demo page is rebuilt around the current time at every start; what was published on it before is replaced",
			"db", sqlstore.Redact(c.db))
	}
	holder := snapshot.NewHolder(store, snapshot.Options{Variant: variant, BaseURL: c.baseURL}, time.Now, log)
	firstBuild := time.Now()
	if err := holder.Refresh(ctx); err != nil {
		return fmt.Errorf("loading the page from %s: %w", sqlstore.Redact(c.db), err)
	}
	firstBuildTook := time.Since(firstBuild)
	if holder.Current() == nil {
		log.Warn("the database holds no page yet; the API answers 503 until one is started",
			"hint", "statusd init --db "+c.db+" --name NAME --url URL, statusd import --db "+c.db+" FILE, or statusd serve --demo")
	}

	var limiter ratelimit.Allower
	var redisUp func() bool // for the metrics, with --redis
	switch {
	case c.limit == 0:
	case c.redisURL != "":
		shared, err := ratelimit.NewShared(c.redisURL, c.limit, log)
		if err != nil {
			return fmt.Errorf("--redis: %w", err)
		}
		defer shared.Close()
		limiter, redisUp = shared, shared.Up
	default:
		limiter = ratelimit.New(c.limit, 0)
	}
	var mailer *notify.Mailer
	if c.smtpURL != "" {
		if mailer, err = notify.NewMailer(notify.MailConfig{URL: c.smtpURL, From: c.mailFrom, Rate: c.smtpRate}); err != nil {
			return commands.Errorf(commands.ExitUsage, "--smtp-url, --mail-from: %w", err)
		}
		defer mailer.Close()
	}
	// The sender and the mirror give way to readers when they are many
	// and actually slowed: goroutines wait for a processor.
	pressure, contention := server.NewPressure(time.Now), server.NewContention(time.Now)
	busy := func() bool {
		many, slowed := pressure.Busy(), contention.Contended()
		return many && slowed
	}
	mirrored := c.newMirror(store, holder, busy)
	// The mail relay's trouble and the mirror's, on /readyz.
	notes := func() []string {
		var notes []string
		if mailer != nil && mailer.Trouble() != "" {
			notes = append(notes, mailer.Trouble())
		}
		if mirrored != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			notes = append(notes, mirrored.Notes(ctx)...)
		}
		return notes
	}
	sender := notify.New(notify.Config{Store: store.Subscribers(), Snapshots: holder, Mailer: mailer,
		AllowPrivate: c.allowPrivate, RetryBase: c.retryBase, Lease: c.lease, Keep: c.keep, Busy: busy, Log: log})
	gate := server.NewGate(c.maxInFlight)
	bv, bc := buildVersion()
	metrics := telemetry.New(telemetry.Config{Snapshots: holder, Shed: gate.Shed, RedisUp: redisUp, Version: bv, Commit: bc, Log: log})
	metrics.ObserveRebuild(firstBuildTook)
	holder.OnBuild = metrics.ObserveRebuild
	if mirrored != nil {
		metrics.WatchMirror(mirrored.States)
	}
	writes := app.New(app.Config{Store: store, Snapshots: holder, Now: time.Now, Notifier: sender, AllowPrivateTargets: c.allowPrivate, Busy: busy})
	publicHandler, adminHandler := server.New(server.Config{Store: store, Snapshots: holder, Variant: variant, App: writes,
		Limiter: limiter, TrustedProxies: c.trusted, Gate: gate, Pressure: pressure, Notes: notes, Metrics: metrics, Now: time.Now, Log: log,
		Cache:         api.CacheControl{MaxAge: c.maxAge, StaleWhileRevalidate: c.staleWhileRevalidate, StaleIfError: c.staleIfError},
		AdminListener: c.adminAddr != "", MetricsPublic: c.metricsPublic, HooksPublic: c.hooksPublic, EmailSubscriptions: c.smtpURL != "", ConfirmationsPerHour: c.confirmationsPerHour,
		MaintenanceReminder: c.reminder, ConsoleURL: c.consoleURL, OIDC: c.oidc})
	public := newHTTPServer(publicHandler, log)
	servers := []*http.Server{public}
	if c.adminAddr != "" {
		servers = append(servers, newHTTPServer(adminHandler, log))
	}
	// Both listeners' connections hold descriptors of the one process:
	// one cap for both.
	conns := connlimit.New(c.maxConns, c.maxConnsPerClient, c.trusted, log)
	for i, srv := range servers {
		listeners[i] = conns.Listen(listeners[i], srv)
	}
	bgCtx, stopBackground := context.WithCancel(ctx)
	defer stopBackground()
	go holder.Watch(bgCtx, watchInterval)
	runner := &automation.Runner{App: writes, Snapshots: holder, Now: time.Now, Log: log, Reminder: c.reminder}
	go runner.Run(bgCtx)
	if mirrored != nil {
		go mirrored.Run(bgCtx)
	}
	sent := make(chan struct{})
	go func() { sender.Run(bgCtx); close(sent) }()
	defer func() { stopBackground(); <-sent }() // the sends under way end before the mailer closes

	log.Info("statusd listening", "url", "http://"+listeners[0].Addr().String(), "db", sqlstore.Redact(c.db), "variant", string(variant))
	if len(listeners) > 1 {
		log.Info("statusd admin API listening", "url", "http://"+listeners[1].Addr().String())
	}
	if mailer != nil {
		log.Info("email subscription is on: every page links to /subscribe", "smtp", sqlstore.Redact(c.smtpURL), "from", c.mailFrom)
	}
	return serveAll(ctx, servers, listeners, log)
}

// serveAll serves each of servers on its listener until ctx ends, then
// drains the requests in flight; or until one stops serving with an
// error, which it returns.
func serveAll(ctx context.Context, servers []*http.Server, listeners []net.Listener, log *slog.Logger) error {
	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(listeners[i]) }()
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Every listener closes at once; requests in flight get the drain
	// timeout to finish, then the connections still open are cut, and the
	// stop, asked for, still succeeds.
	const drainTimeout = 10 * time.Second
	shutdownCtx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	cut := make(chan bool, len(servers))
	for _, srv := range servers {
		go func() {
			err := srv.Shutdown(shutdownCtx)
			if err != nil && !errors.Is(err, http.ErrServerClosed) {
				srv.Close()
			}
			cut <- err != nil && !errors.Is(err, http.ErrServerClosed)
		}()
	}
	for range servers {
		if <-cut {
			log.Warn("requests still in flight after the drain timeout were cut off", "drain_timeout", drainTimeout)
		}
	}
	log.Info("statusd stopped")
	return nil
}

// parseMirrors opens the buckets of --mirror (CONTRACT C10).
func (c *serveConfig) parseMirrors(cmd *cobra.Command) ([]mirror.Bucket, error) {
	if len(c.mirrorURLs) > 0 && (c.mirrorHeartbeat < time.Second || c.mirrorStaleAfter < time.Second) {
		return nil, commands.UsageError(cmd, "--mirror-heartbeat and --mirror-stale-after must be at least 1s")
	}
	var out []mirror.Bucket
	for _, u := range c.mirrorURLs {
		if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
			return nil, commands.UsageError(cmd, "--mirror %s: statusd pushes to s3://bucket/prefix or file:///dir; a web server serves what is there", u)
		}
		b, err := mirror.Open(u, mirror.Options{Endpoint: c.mirrorEndpoint, Region: c.mirrorRegion}.WithEnv(c.getenv))
		if err != nil {
			return nil, commands.Errorf(commands.ExitUsage, "--mirror: %w", err)
		}
		out = append(out, b)
	}
	return out, nil
}

// newMirror returns the mirror of --mirror, rendering with the live
// routes; nil without one.
func (c *serveConfig) newMirror(store *sqlstore.Store, holder *snapshot.Holder, busy func() bool) *mirror.Mirror {
	if len(c.mirrors) == 0 {
		return nil
	}
	return mirror.New(mirror.Config{Buckets: c.mirrors, Store: store.Mirror(), Snapshots: holder, Variant: c.variant,
		Render:    server.Renderer(server.Config{Variant: c.variant, EmailSubscriptions: c.smtpURL != "", Now: time.Now, Log: c.log}),
		Heartbeat: c.mirrorHeartbeat, StaleAfter: c.mirrorStaleAfter, Busy: busy, Now: time.Now, Log: c.log})
}

// parseOIDC returns the console's OpenID Connect configuration, nil
// without --oidc-issuer: the three flags go together, the issuer is https
// (or loopback), and the redirect URI needs the console's URL, which
// --admin-addr leaves unknown without --console-url.
func (c *serveConfig) parseOIDC(cmd *cobra.Command) (*console.OIDC, error) {
	given := map[string]bool{"--oidc-issuer": c.oidcIssuer != "", "--oidc-client-id": c.oidcClientID != "", "--oidc-client-secret": c.oidcClientSecret != ""}
	var missing []string
	for _, name := range []string{"--oidc-issuer", "--oidc-client-id", "--oidc-client-secret"} {
		if !given[name] {
			missing = append(missing, name)
		}
	}
	switch {
	case len(missing) == 3 && c.oidcTrustEmail:
		return nil, commands.UsageError(cmd, "--oidc-trust-email is for sign-in with OpenID Connect: give --oidc-issuer, --oidc-client-id and --oidc-client-secret too")
	case len(missing) == 3:
		return nil, nil
	case len(missing) > 0:
		return nil, commands.UsageError(cmd, "sign-in with OpenID Connect needs --oidc-issuer, --oidc-client-id and --oidc-client-secret together; missing %s", strings.Join(missing, ", "))
	}
	if err := console.CheckIssuer(c.oidcIssuer); err != nil {
		return nil, commands.Errorf(commands.ExitUsage, "--oidc-issuer: %v", err)
	}
	if c.adminAddr != "" && c.consoleURL == "" {
		return nil, commands.UsageError(cmd, "--oidc-issuer with --admin-addr needs --console-url, the URL people reach the admin listener at: the provider sends them back to <console-url>%s", console.OIDCCallbackPath)
	}
	return &console.OIDC{Issuer: c.oidcIssuer, ClientID: c.oidcClientID, ClientSecret: c.oidcClientSecret, TrustEmail: c.oidcTrustEmail}, nil
}

// listenersKey is the context key of the listeners a caller of run in the
// same process hands to serve (see withListeners).
type listenersKey struct{}

// withListeners returns a context under which serve, instead of opening
// listeners on --addr and --admin-addr, serves on lns, in that order: a test
// opens them on port 0 and so knows their addresses before serve starts.
func withListeners(ctx context.Context, lns ...net.Listener) context.Context {
	return context.WithValue(ctx, listenersKey{}, lns)
}

// listen returns serve's listeners, one for each of addrs: the ones handed
// over, else new ones on addrs. Listeners are handed over in the context
// (withListeners) or, as systemd's socket activation does, as the open
// descriptors 3, 4... of the process, with LISTEN_FDS their number (and
// LISTEN_PID, if set, this process's id); tests that start statusd as a
// child process hand it a listening socket that way.
func listen(ctx context.Context, getenv func(string) string, addrs []string) ([]net.Listener, error) {
	if lns, ok := ctx.Value(listenersKey{}).([]net.Listener); ok {
		if len(lns) != len(addrs) {
			return nil, fmt.Errorf("%d listeners handed over for %d addresses", len(lns), len(addrs))
		}
		return lns, nil
	}
	var out []net.Listener
	fail := func(err error) ([]net.Listener, error) {
		for _, ln := range out {
			ln.Close()
		}
		return nil, err
	}
	if n := getenv("LISTEN_FDS"); n != "" && (getenv("LISTEN_PID") == "" || getenv("LISTEN_PID") == strconv.Itoa(os.Getpid())) {
		if n != strconv.Itoa(len(addrs)) {
			return nil, fmt.Errorf("LISTEN_FDS=%s: statusd serve listens on %d sockets here (--admin-addr makes it 2)", n, len(addrs))
		}
		for i := range addrs {
			f := os.NewFile(uintptr(3+i), "LISTEN_FD_"+strconv.Itoa(3+i))
			ln, err := net.FileListener(f)
			f.Close()
			if err != nil {
				return fail(fmt.Errorf("LISTEN_FDS: descriptor %d: %w", 3+i, err))
			}
			out = append(out, ln)
		}
		return out, nil
	}
	for _, addr := range addrs {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fail(err)
		}
		out = append(out, ln)
	}
	return out, nil
}

// newHTTPServer returns a server with every timeout set, so that slow
// clients cannot hold it.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// publishDemo writes the demo page, timed around now, unless the database
// holds a page that is not the demo.
func publishDemo(ctx context.Context, store *sqlstore.Store, path string) error {
	doc, _, err := store.Load(ctx)
	if err != nil {
		return err
	}
	if doc != nil && doc.Page.URL != demo.URL {
		return fmt.Errorf("--demo would replace the page %q in %s; use another --db for the demo", doc.Page.Name, path)
	}
	return store.Import(ctx, demo.Document(time.Now()), true)
}

func parsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			addr, err := netip.ParseAddr(part)
			if err != nil {
				return nil, fmt.Errorf("%q is not an address or CIDR", part)
			}
			out = append(out, netip.PrefixFrom(addr, addr.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not an address or CIDR", part)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
