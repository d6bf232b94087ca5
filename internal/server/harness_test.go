package server_test

// The end-to-end harness of the assembly: startServer opens a real SQLite store
// on t.TempDir(), imports the page, builds the snapshot holder and the
// handlers of both listeners with server.New as serve does, with the
// notification worker and the automation runner, and serves them with
// httptest. A test then talks to it as a testserver.Server: through the Go
// SDK where it checks behaviour, and through raw requests where it checks
// exact bytes. What needs the binary, run or the command line (flags,
// signals, replicas, start-up and shutdown) is tested in cmd/statusd.

import (
	"bytes"
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/api"
	"github.com/statusd/statusd/internal/app"
	"github.com/statusd/statusd/internal/automation"
	"github.com/statusd/statusd/internal/console"
	"github.com/statusd/statusd/internal/mirror"
	"github.com/statusd/statusd/internal/notify"
	"github.com/statusd/statusd/internal/ratelimit"
	"github.com/statusd/statusd/internal/server"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/sqlstore"
	"github.com/statusd/statusd/internal/telemetry"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// options shape a server as serve's flags do; the zero value is serve's
// defaults with the rate limit off.
type options struct {
	variant       statusd.Variant // --variant: "" for a
	baseURL       string          // --base-url
	adminListener bool            // --admin-addr
	rateLimit     float64         // --rate-limit: 0 for off
	trusted       []netip.Prefix  // --trusted-proxies
	metricsPublic bool            // --metrics-public
	hooksPublic   bool            // --hooks-public
	maxInFlight   int             // --max-in-flight: 0 for 512
	cache         *api.CacheControl
	// smtp is where email goes (--smtp-url, --mail-from): email
	// subscriptions are on with it.
	smtp         *testenv.SMTPServer
	allowPrivate bool          // --allow-private-targets
	retryBase    time.Duration // --notify-retry-base: 0 for the default
	reminder     time.Duration // --maintenance-reminder: 0 for 1h
	consoleURL   string        // --console-url
	oidc         *console.OIDC // --oidc-issuer, --oidc-client-id, --oidc-client-secret
	debug        bool          // --log-level debug
	db           string        // --db: "" for a SQLite file of the test's own, in dbDir
	dbDir        string        // the SQLite file's folder: t.TempDir() when ""
	// now is the clock of the readers, the pages and the mirror: nil
	// for time.Now (writes keep the real time).
	now func() time.Time
	// mirrors are where the mirror pushes (--mirror), every
	// mirrorHeartbeat (--mirror-heartbeat: 0 for the default).
	mirrors         []mirror.Bucket
	mirrorHeartbeat time.Duration
}

// startServer imports doc (when not nil) into a fresh database and serves
// it as o says; the server stops when the test ends.
func startServer(t *testing.T, doc *statusd.Document, o options) *testserver.Server {
	t.Helper()
	ctx := context.Background()
	if o.dbDir == "" {
		o.dbDir = t.TempDir()
	}
	db := o.db
	if db == "" {
		db = filepath.Join(o.dbDir, "statusd.db")
	}
	store, err := sqlstore.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if doc != nil {
		var b bytes.Buffer
		if err := statusd.EncodeDocument(&b, doc); err != nil {
			t.Fatal(err)
		}
		importInto(t, store, b.String(), false)
	}
	logs := &testenv.LogBuffer{}
	level := slog.LevelInfo
	if o.debug {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: level}))
	store.LogTo(log)
	if o.variant == "" {
		o.variant = statusd.VariantA
	}
	if o.now == nil {
		o.now = time.Now
	}
	holder := snapshot.NewHolder(store, snapshot.Options{Variant: o.variant, BaseURL: o.baseURL}, o.now, log)
	pub, adm, background := assemble(t, store, holder, o, log)
	if err := holder.Refresh(ctx); err != nil { // the first build, which the metrics observe
		t.Fatal(err)
	}
	bgCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { background(bgCtx); close(done) }()
	public := httptest.NewServer(pub)
	var adminURL string
	var adminSrv *httptest.Server
	if adm != nil {
		adminSrv = httptest.NewServer(adm)
		adminURL = adminSrv.URL
	}
	t.Cleanup(func() {
		public.Close()
		if adminSrv != nil {
			adminSrv.Close()
		}
		stop()
		<-done
		store.Close()
	})
	srv := testserver.New(t, public.URL, adminURL, logs)
	srv.DB = db
	srv.Export = func(t *testing.T) string { return export(t, db) }
	return srv
}

// assemble builds the handlers of both listeners (adm nil without
// o.adminListener) as serve does, and what runs beside them: the snapshot's
// watch, the automation runner and the notification worker, until the
// context ends.
func assemble(t *testing.T, store *sqlstore.Store, holder *snapshot.Holder, o options, log *slog.Logger) (pub, adm http.Handler, background func(context.Context)) {
	t.Helper()
	var limiter ratelimit.Allower
	if o.rateLimit > 0 {
		limiter = ratelimit.New(o.rateLimit, 0)
	}
	var mailer *notify.Mailer
	if o.smtp != nil {
		var err error
		mailer, err = notify.NewMailer(notify.MailConfig{URL: "smtp://" + o.smtp.Addr,
			From: "Acme Status <status@acme.test>", Rate: notify.DefaultMailRate})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { mailer.Close() })
	}
	if o.retryBase == 0 {
		o.retryBase = notify.DefaultRetryBase
	}
	if o.reminder == 0 {
		o.reminder = time.Hour
	}
	if o.maxInFlight == 0 {
		o.maxInFlight = 512
	}
	cache := api.CacheControl{MaxAge: 5 * time.Second, StaleWhileRevalidate: 30 * time.Second, StaleIfError: 24 * time.Hour}
	if o.cache != nil {
		cache = *o.cache
	}
	pressure := server.NewPressure(time.Now)
	sender := notify.New(notify.Config{Store: store.Subscribers(), Snapshots: holder, Mailer: mailer,
		AllowPrivate: o.allowPrivate, RetryBase: o.retryBase, Lease: notify.DefaultLease, Busy: pressure.Busy, Log: log})
	gate := server.NewGate(o.maxInFlight)
	metrics := telemetry.New(telemetry.Config{Snapshots: holder, Shed: gate.Shed, Log: log})
	holder.OnBuild = metrics.ObserveRebuild
	writes := app.New(app.Config{Store: store, Snapshots: holder, Now: time.Now, Notifier: sender, AllowPrivateTargets: o.allowPrivate,
		Busy: pressure.Busy})
	var mirrored *mirror.Mirror
	if len(o.mirrors) > 0 {
		mirrored = mirror.New(mirror.Config{Buckets: o.mirrors, Store: store.Mirror(), Snapshots: holder, Variant: o.variant,
			Render:    server.Renderer(server.Config{Variant: o.variant, EmailSubscriptions: o.smtp != nil, Now: o.now, Log: log}),
			Heartbeat: cmp.Or(o.mirrorHeartbeat, mirror.DefaultHeartbeat), StaleAfter: mirror.DefaultStaleAfter, Busy: pressure.Busy,
			Now: o.now, Log: log})
		metrics.WatchMirror(mirrored.States)
	}
	pub, adm = server.New(server.Config{Store: store, Snapshots: holder, Variant: o.variant, App: writes,
		Limiter: limiter, TrustedProxies: o.trusted, Gate: gate, Pressure: pressure, Metrics: metrics, Now: o.now, Log: log,
		Notes: func() []string {
			if mirrored == nil {
				return nil
			}
			return mirrored.Notes(context.Background())
		},
		Cache: cache, AdminListener: o.adminListener, MetricsPublic: o.metricsPublic, HooksPublic: o.hooksPublic, EmailSubscriptions: o.smtp != nil,
		MaintenanceReminder: o.reminder, ConsoleURL: o.consoleURL, OIDC: o.oidc})
	runner := &automation.Runner{App: writes, Snapshots: holder, Now: time.Now, Log: log, Reminder: o.reminder}
	return pub, adm, func(ctx context.Context) {
		var wg sync.WaitGroup
		wg.Go(func() { holder.Watch(ctx, 250*time.Millisecond) })
		wg.Go(func() { runner.Run(ctx) })
		if mirrored != nil {
			wg.Go(func() { mirrored.Run(ctx) })
		}
		sender.Run(ctx)
		wg.Wait() // before the store closes
	}
}

// newToken creates an admin token named name in the database at db, as
// statusd token create does, and returns the secret.
func newToken(t *testing.T, db, name string) string {
	t.Helper()
	return newRoleToken(t, db, name, statusd.Owner)
}

// newRoleToken is newToken of a token that acts as role, as statusd token
// create --role does.
func newRoleToken(t *testing.T, db, name string, role statusd.Role) string {
	t.Helper()
	secret, tok, err := statusd.NewNamedToken(name, role, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := testserver.OpenStore(t, db).Tokens().Create(context.Background(), tok, nil); err != nil {
		t.Fatalf("token create: %v", err)
	}
	return secret
}

// export is the page document of the database at db, with its first
// thousand subscribers, as statusd export writes it.
func export(t *testing.T, db string) string {
	t.Helper()
	ctx := context.Background()
	store := testserver.OpenStore(t, db)
	doc, _, err := store.Load(ctx)
	if err != nil || doc == nil {
		t.Fatalf("export: %v, or no page", err)
	}
	if doc.Subscribers, _, err = store.Subscribers().List(ctx, statusd.SubscriberFilter{}, 1, 1000); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := statusd.EncodeDocument(&b, doc); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// importDoc imports the document doc (JSON) into the database at db, in
// place of its page when replace, as statusd import does.
func importDoc(t *testing.T, db, doc string, replace bool) {
	t.Helper()
	importInto(t, testserver.OpenStore(t, db), doc, replace)
}

// importInto decodes the document doc (JSON), which numbers its updates,
// and imports it into store, in place of its page when replace.
func importInto(t *testing.T, store *sqlstore.Store, doc string, replace bool) {
	t.Helper()
	d, err := statusd.DecodeDocument(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("the document does not decode: %v", err)
	}
	if err := store.Import(context.Background(), d, replace); err != nil {
		t.Fatalf("import: %v", err)
	}
}
